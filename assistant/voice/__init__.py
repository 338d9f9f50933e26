"""The assistant's voices: Piper speech shaped into characters, cached, and played.

``announcer.SpokenAnnouncer`` speaks a game's outputs; ``voices.Voices`` makes the audio;
``prepare.prepare_voice_cache`` renders every fixed phrase ahead of time.
"""
