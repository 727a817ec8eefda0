"""The demo: the console front end, the guided tour and the bundled scenarios."""
