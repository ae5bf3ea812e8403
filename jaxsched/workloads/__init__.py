"""Workloads: functions and files that produce jobsets."""
