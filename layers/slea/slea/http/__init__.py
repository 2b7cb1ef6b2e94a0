"""slea/http"""
