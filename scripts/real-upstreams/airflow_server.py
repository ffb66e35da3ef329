"""Apache Airflow's REST API (v2, `airflow api-server`: FastAPI on uvicorn), SQLite, the simple auth manager with every
user an admin (no token), no example DAGs. Runs from its own venv (.venv-airflow: Airflow pins versions the other
servers' packages do not take).

    python airflow_server.py PORT

Route (1000 variables, `thing-0001` … `thing-1000`, made with `airflow variables import`; some values hold JSON
text, the rest escapes and non-ASCII text):
  /api/v2/variables?limit=&offset=   {"variables": [{"key", "value", "description", "is_encrypted", "team_name"}, …],
        "total_entries": 1000}, compact JSON, non-ASCII raw, ordered by id. `limit` 50 by default
        (`[api] fallback_page_limit`), above 100 read as 100 without a word (`maximum_page_limit`); an offset past
        the end answers no items and the total. No next link, no page count.
"""
import json, os, subprocess, sys, tempfile

from dataset import rows


def main():
    port = sys.argv[1]
    home = tempfile.mkdtemp(prefix="pp-airflow-")
    env = dict(os.environ, AIRFLOW_HOME=home, AIRFLOW__CORE__LOAD_EXAMPLES="False",
               AIRFLOW__CORE__AUTH_MANAGER="airflow.api_fastapi.auth.managers.simple.simple_auth_manager.SimpleAuthManager",
               AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS="True")
    # Run by this interpreter, not by its shebang: a venv moved to another path keeps a stale one in its scripts.
    airflow = [sys.executable, os.path.join(os.path.dirname(sys.executable), "airflow")]
    subprocess.run([*airflow, "db", "migrate"], env=env, check=True, capture_output=True)
    variables = {}
    for row in rows():
        key = f"thing-{row['id']:04d}"
        variables[key] = json.dumps(row, ensure_ascii=False) if row["id"] % 5 == 0 else (row["note"] or row["name"])
    path = os.path.join(home, "variables.json")
    with open(path, "w") as f:
        json.dump(variables, f, ensure_ascii=False)
    subprocess.run([*airflow, "variables", "import", path], env=env, check=True, capture_output=True)
    # exec: the harness stops this PID, and the API server runs in it (no worker processes with the defaults).
    os.execve(sys.executable, [*airflow, "api-server", "--host", "127.0.0.1", "--port", port], env)


if __name__ == "__main__":
    main()
