"""analytics/spark/run_pipeline.py: the entry point for spark-submit and Databricks (Python
script task); see README.md. Rules: docs/analytics_rules.md."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ocppgw_spark.job import main  # noqa: E402

if __name__ == "__main__":
    main()
