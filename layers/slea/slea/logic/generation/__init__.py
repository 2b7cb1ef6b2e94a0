"""slea/logic/generation"""
