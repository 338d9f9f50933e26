"""Hands-free play: microphone, keypad and speaker around one session."""
