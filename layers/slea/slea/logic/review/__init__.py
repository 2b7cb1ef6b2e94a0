"""slea/logic/review"""
