#!/usr/bin/env python3
"""A real SMTP server for the mail tests (aiosmtpd): it listens on 127.0.0.1:PORT and writes each
message it accepts to DIR as N.eml, with N.json holding its envelope (mail_from, rcpt_tos). MODE is
`starttls` (TLS by STARTTLS, required before AUTH and mail), `implicit` (TLS from the first byte)
or `plain` (no TLS offered). With USER and PASSWORD, mail needs AUTH (PLAIN or LOGIN) as that user. A
recipient whose address starts with `nobody@` is refused with 550; `busy@` with 451. DIR/ready
appears once it listens. Usage: smtp-test-server.py PORT DIR MODE CERT KEY [USER PASSWORD]"""
import json
import os
import signal
import ssl
import sys
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


def main():
    port, folder, mode, cert, key = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
    user, password = (sys.argv[6], sys.argv[7]) if len(sys.argv) > 7 else (None, None)
    count = [0]

    class Handler:
        async def handle_RCPT(self, server, session, envelope, address, options):
            if address.startswith("nobody@"):
                return "550 5.1.1 no such mailbox"
            if address.startswith("busy@"):
                return "451 4.3.0 try again later"
            envelope.rcpt_tos.append(address)
            return "250 OK"

        async def handle_DATA(self, server, session, envelope):
            count[0] += 1
            name = os.path.join(folder, str(count[0]))
            # The envelope first and each file whole (written aside, then renamed): a reader that
            # sees N.eml finds N.json complete beside it.
            sidecar = json.dumps({"mail_from": envelope.mail_from, "rcpt_tos": envelope.rcpt_tos,
                                  "tls": session.ssl is not None
                                  or server.transport.get_extra_info("ssl_object") is not None})
            for extension, content in ((".json", sidecar.encode()), (".eml", envelope.original_content)):
                with open(name + extension + ".part", "wb") as part:
                    part.write(content)
                os.rename(name + extension + ".part", name + extension)
            return f"250 OK queued as {count[0]}"

    def authenticator(server, session, envelope, mechanism, auth_data):
        good = (isinstance(auth_data, LoginPassword) and user is not None
                and auth_data.login == user.encode() and auth_data.password == password.encode())
        return AuthResult(success=good, handled=False)

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    options = {"authenticator": authenticator, "auth_required": True} if user else {}
    if mode == "starttls":
        controller = Controller(Handler(), hostname="127.0.0.1", port=port, tls_context=context,
                                require_starttls=True, auth_require_tls=True, **options)
    elif mode == "implicit":
        controller = Controller(Handler(), hostname="127.0.0.1", port=port, ssl_context=context,
                                auth_require_tls=False, server_hostname="localhost", **options)
    else:
        controller = Controller(Handler(), hostname="127.0.0.1", port=port, auth_require_tls=False, **options)
    controller.start()
    open(os.path.join(folder, "ready"), "w").close()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    controller.stop()


if __name__ == "__main__":
    main()
