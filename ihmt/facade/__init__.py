"""The parts of the IHMT facade (ihmt/api.py), one job each: ingesting, upkeep, read models and
the operations presenters and services need. Only :class:`ihmt.api.IHMT` combines them."""
