"""Every player's phone as a private keypad: a page on the home network, joined with the
game's 4-digit PIN, that shows each player what the game asks of them and takes their
presses (secret codes, shots, termination, shields) as a keypad does. docs/phone-keypad.md.
"""

from assistant.phone.server import PhoneError, PhoneKeypad, PhoneSettings

__all__ = ["PhoneError", "PhoneKeypad", "PhoneSettings"]
