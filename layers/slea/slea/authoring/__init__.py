"""slea/authoring"""
