"""A stand-in SMTP server for the tests (aiosmtpd, on 127.0.0.1, plain SMTP): keeps every
message it receives, so a test can read the mail Shoal sent."""

from __future__ import annotations

import email
import email.policy
import socket
import threading

from aiosmtpd.controller import Controller


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Inbox:
    """Started on construction; `stop()` ends it. `messages` holds (recipients, parsed mail)."""

    def __init__(self):
        self.messages: list[tuple[list[str], email.message.EmailMessage]] = []
        self._lock = threading.Lock()
        self.port = _free_port()
        self._controller = Controller(self, hostname="127.0.0.1", port=self.port)
        # Returns once the server answers on its port.
        self._controller.start()

    async def handle_DATA(self, server, session, envelope):
        mail = email.message_from_bytes(envelope.original_content or envelope.content,
                                        policy=email.policy.default)
        with self._lock:
            self.messages.append((list(envelope.rcpt_tos), mail))
        return "250 Message accepted"

    def received(self) -> list:
        with self._lock:
            return list(self.messages)

    def stop(self) -> None:
        self._controller.stop()
