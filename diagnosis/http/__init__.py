"""The HTTP layer shared by the Run:ai and Kubernetes clients: guard, retries, errors."""
