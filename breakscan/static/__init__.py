"""The static pass: libcst-based prediction of graph breaks inside compile regions.

Never imports torch or the scanned code. Entry point: `breakscan.static.engine.scan_files`.
"""
