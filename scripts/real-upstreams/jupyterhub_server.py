"""JupyterHub's REST API (the Hub's own Tornado server), without its node proxy: a proxy class that keeps its routes
in memory stands in for configurable-http-proxy, which the Hub would otherwise start (npm, not installed here).

    python jupyterhub_server.py PORT

Routes (Authorization: token <TOKEN>, a service's token with list/read scopes on users and groups):
  /hub/api/groups   with `Accept: application/jupyterhub-pagination+json`:
        {"items": [{"kind": "group", "name": "thing-1", "roles": [], "users": [], "properties": {…the row…}}, …],
         "_pagination": {"offset": 0, "limit": 50, "total": 1000,
                         "next": {"offset": 50, "limit": 50, "url": "http://127.0.0.1:PORT/hub/api/groups?offset=50&limit=50"}}}
        `next` is null on the last page; `?offset=&limit=`, 50 by default, a limit above 200 (api_page_max_limit)
        silently read as 200. Without that Accept value: a bare array of at most 200 groups (the Hub logs
        "Truncated group list…"), nothing saying more exist. `json.dumps` with its default separators and ASCII
        escapes (`\\u00ef`); Tornado's strong ETag on every GET, and 304 to a matching If-None-Match.
  /hub/api/users    the same form for 1000 users `thing-1` … `thing-1000` (no properties of their own)
The groups carry the harness's rows (escapes and non-ASCII text) as their `properties`; users and groups are made by
the Hub itself at start (`Authenticator.allowed_users`, `load_groups`) in a fresh SQLite file, removed at exit.
"""
import os, shutil, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dataset import rows  # noqa: E402

TOKEN = "harness-jupyterhub-token"


def main():
    port = int(sys.argv[1])
    folder = tempfile.mkdtemp(prefix="pp-jupyterhub-")
    try:
        os.chdir(folder)  # no jupyterhub_config.py is read from the harness's own folder
        from traitlets.config import Config
        from jupyterhub.app import JupyterHub
        from jupyterhub.proxy import Proxy

        class MemoryProxy(Proxy):
            """The Proxy API over a dict: the Hub's REST API needs no proxy in front of it."""
            should_start = False
            table = {}

            async def start(self):
                pass

            async def stop(self):
                pass

            async def add_route(self, routespec, target, data):
                self.table[routespec] = {"routespec": routespec, "target": target, "data": data}

            async def delete_route(self, routespec):
                self.table.pop(routespec, None)

            async def get_all_routes(self):
                return dict(self.table)

        c = Config()
        c.JupyterHub.proxy_class = MemoryProxy
        c.JupyterHub.hub_ip, c.JupyterHub.hub_port = "127.0.0.1", port
        c.JupyterHub.bind_url = "http://127.0.0.1:1/"  # nothing listens there: no proxy runs
        c.JupyterHub.db_url = f"sqlite:///{folder}/jupyterhub.sqlite"
        c.JupyterHub.cookie_secret_file = os.path.join(folder, "cookie_secret")
        c.JupyterHub.pid_file = os.path.join(folder, "jupyterhub.pid")
        c.JupyterHub.cleanup_servers = False
        c.JupyterHub.authenticator_class = "dummy"
        c.JupyterHub.log_level = "WARN"
        c.Authenticator.allowed_users = {row["name"] for row in rows()}
        c.JupyterHub.load_groups = {row["name"]: {"users": [], "properties": row} for row in rows()}
        c.JupyterHub.services = [{"name": "harness", "api_token": TOKEN}]
        c.JupyterHub.load_roles = [{"name": "harness", "services": ["harness"],
                                    "scopes": ["list:users", "read:users", "list:groups", "read:groups"]}]
        JupyterHub.instance(config=c)  # the singleton that launch_instance then runs
        JupyterHub.launch_instance(argv=[])
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
