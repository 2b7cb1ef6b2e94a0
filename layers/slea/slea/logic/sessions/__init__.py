"""slea/logic/sessions"""
