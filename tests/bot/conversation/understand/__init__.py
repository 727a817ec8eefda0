"""Tests for understanding what people type and paste (bot.conversation.understand)."""
