"""slea/platform"""
