"""The queue room of the service: hand-ins taken, stored, claimed and graded."""
