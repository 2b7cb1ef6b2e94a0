"""slea/feedback"""
