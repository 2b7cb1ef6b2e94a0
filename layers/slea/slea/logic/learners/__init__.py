"""slea/logic/learners"""
