"""Operations: logging, metrics, request traces and the audit trail."""
