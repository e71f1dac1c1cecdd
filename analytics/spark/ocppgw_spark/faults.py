"""ocppgw_spark.faults: a crash point for the restart-safety tests (tests/spark/). With
OCPPGW_SPARK_KILL_AT="<batch_id>:<step>" the driver SIGKILLs its own process group (itself and
its JVM) right after that write of that micro-batch, leaving the tables exactly as a crash
there would. Unset (always, outside tests) it does nothing."""
import os
import signal


def crash_point(batch_id, step):
    if os.environ.get("OCPPGW_SPARK_KILL_AT") == f"{batch_id}:{step}":
        print(f"ocppgw_spark killed at {batch_id}:{step}", flush=True)
        os.killpg(os.getpgid(0), signal.SIGKILL)
