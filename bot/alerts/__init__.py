"""Alertmanager alerts: `POST /alerts/alertmanager`, mapped to a workload, diagnosed, posted."""
