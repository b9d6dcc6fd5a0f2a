"""The dynamic pass: run user code under Dynamo in a child process and report what it observed.

Public entry point: `breakscan.dynamic.runner.run_dynamic`.
"""
