"""slea/logic/rounds"""
