"""slea/logic/answering"""
