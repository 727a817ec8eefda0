"""Understanding what people type and paste: one pipeline for Slack, Teams and the console.

`pipeline.understand` is the entry point (normalise → extract → parse → link); the other
modules are its steps and the engine's follow-ups to it (pods, unreadable projects,
corrections, several workloads). Nothing is imported here, so `bot.conversation.model` can
name `markup.Markup` without importing the engine's modules.
"""
