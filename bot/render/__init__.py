"""Platform-neutral rendering: the report's plan, its wording, the console text and the chart."""
