"""The service wing: hand-ins graded as they arrive.

- ``visibility.py``: what a student sees of each check before their due date.
- ``rate_limit.py``: how many checks a student may ask for, and when the next is allowed.
"""
