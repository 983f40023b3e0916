"""How a request is shaped and a reply is read: completion, chat, infill, edit loop."""

from codetrial.protocols.base import PROTOCOLS, Protocol, SampleContext, Sampling

__all__ = ["PROTOCOLS", "Protocol", "SampleContext", "Sampling"]
