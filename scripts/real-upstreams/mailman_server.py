"""Mailman 3 core's REST API (its own falcon WSGI application, `mailman.rest.wsgiapp`), without its runners, on
wsgiref; a fresh SQLite database in a temporary folder, removed when the server stops.

    python mailman_server.py PORT

Route (HTTP Basic restadmin:restpass; the list things@example.com with 1000 members, made with Mailman's own
IUserManager and IMailingList.subscribe before it listens):
  /3.0/members   every member of every list, `?count=N&page=P` (both, or neither: then every member on one page; one
        alone is a 500, Mailman's own TypeError):
        {"entries": [...], "http_etag": "\"…\"", "start": 0, "total_size": 1000}: no link, no page number; a page past
        the end leaves "entries" out. `json.dumps` with spaces, ASCII escapes and sorted keys (devmode), members
        ordered by address; each has a 128-bit integer `member_id`, past every 64-bit integer and double.
  (The list's own roster, /3.0/lists/things.example.com/roster/member, is a 500 under SQLAlchemy 2.1: Mailman 3.3.10
  counts with `select_from(<a Select>)`, which SQLAlchemy 2.1 refuses.)
"""
import os, shutil, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dataset import rows  # noqa: E402


def main():
    port = int(sys.argv[1])
    folder = tempfile.mkdtemp(prefix="pp-mailman-")
    try:
        config_file = os.path.join(folder, "mailman.cfg")
        # devmode: no mail leaves (and keys are sorted); the REST API's own admin credentials.
        with open(config_file, "w") as f:
            f.write(f"[mailman]\nlayout: here\nsite_owner: owner@example.com\n[paths.here]\nvar_dir: {folder}/var\n"
                    f"[webservice]\nhostname: 127.0.0.1\nport: {port}\nadmin_user: restadmin\nadmin_pass: restpass\n"
                    "[devmode]\nenabled: yes\nrecipient: nobody@example.com\n")
        from mailman.core.initialize import initialize
        initialize(config_file)
        from mailman.config import config
        from mailman.interfaces.domain import IDomainManager
        from mailman.interfaces.listmanager import IListManager
        from mailman.interfaces.usermanager import IUserManager
        from mailman.rest.wsgiapp import make_application
        from mailman.utilities.datetime import now
        from wsgiref.simple_server import WSGIRequestHandler, make_server
        from zope.component import getUtility

        getUtility(IDomainManager).add("example.com")
        mailing_list = getUtility(IListManager).create("things@example.com")
        users = getUtility(IUserManager)
        for row in rows():
            # The display name carries the row's escapes and non-ASCII text.
            address = users.create_address(f"{row['name']}@example.com", " ".join(filter(None, [row["name"], row["note"]])))
            address.verified_on = now()
            mailing_list.subscribe(address)
        config.db.commit()

        class QuietHandler(WSGIRequestHandler):
            def log_message(self, *args):
                pass

        make_server("127.0.0.1", port, make_application(), handler_class=QuietHandler).serve_forever()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
