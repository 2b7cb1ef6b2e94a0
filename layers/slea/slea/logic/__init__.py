"""slea/logic"""
