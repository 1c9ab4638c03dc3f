"""fairsched: fair scheduling in shared computing systems owned by several organizations.

Data flows one way: workload -> scenario -> engine + policy -> schedule -> metrics -> report.
"""

__version__ = "0.1.0"
