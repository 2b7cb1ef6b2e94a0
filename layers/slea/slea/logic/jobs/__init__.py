"""slea/logic/jobs"""
