"""MLflow's tracking server (its FastAPI app wrapping the Flask REST handlers) on uvicorn, a SQLite backend store,
as `mlflow server --backend-store-uri sqlite:///… --workers 1` runs it (less its background job runner).

    python mlflow_server.py PORT

Route (1000 experiments `thing-1` … `thing-1000` and MLflow's own `Default`, made before it listens):
  /api/2.0/mlflow/experiments/search   Google AIP-158 style: `?max_results=N&page_token=T` →
        `{"experiments": [...], "next_page_token": "eyJvZmZzZXQiOiAxMDB9"}` (base64 of `{"offset": 100}`, with `=`
        padding), the token absent on the last page (the store fetches one row more than asked to decide). JSON with a
        2-space indent. Newest first, so `Default` (experiment 0) is the last item. `max_results` is required on a GET
        (without it: 400 "Invalid value 0 for parameter 'max_results'"), at most 50000; a bad token is a 400
        `INVALID_PARAMETER_VALUE`. An empty result is `{}` (protobuf JSON leaves out an empty repeated field).
The experiments are made with MLflow's own `SqlAlchemyStore.create_experiment` (what the REST handler calls) in a
fresh SQLite file in a temporary folder, removed when the server stops.
"""
import os, shutil, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dataset import rows  # noqa: E402


def main():
    port = int(sys.argv[1])
    folder = tempfile.mkdtemp(prefix="pp-mlflow-")
    try:
        uri, artifacts = f"sqlite:///{folder}/mlflow.db", os.path.join(folder, "artifacts")
        # What `mlflow server` puts in its uvicorn worker's environment for these options.
        os.environ.update({"MLFLOW_TRACKING_URI": uri, "MLFLOW_REGISTRY_URI": uri, "_MLFLOW_SERVER_FILE_STORE": uri,
                           "_MLFLOW_SERVER_REGISTRY_STORE": uri, "_MLFLOW_SERVER_ARTIFACT_ROOT": artifacts,
                           "_MLFLOW_SERVER_SERVE_ARTIFACTS": "false", "_MLFLOW_SGI_NAME": "uvicorn",
                           "MLFLOW_SERVER_X_FRAME_OPTIONS": "SAMEORIGIN", "MLFLOW_ENABLE_WORKSPACES": "false"})
        from mlflow.entities import ExperimentTag
        from mlflow.store.tracking.sqlalchemy_store import SqlAlchemyStore
        store = SqlAlchemyStore(uri, artifacts)
        for row in rows():
            tags = [ExperimentTag("kind", row["kind"]), ExperimentTag("price", row["price"])]
            if row["note"]:
                tags.append(ExperimentTag("note", row["note"]))
            store.create_experiment(row["name"], tags=tags)
        import uvicorn
        uvicorn.run("mlflow.server.fastapi_app:app", host="127.0.0.1", port=port, workers=1, log_level="warning")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
