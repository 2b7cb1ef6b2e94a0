"""Scheduled jobs: the calibration of item difficulties from the answers."""
