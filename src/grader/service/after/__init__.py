"""The after-grading room of the service: feedback released and grades pushed once final."""
