#!/usr/bin/env python3
"""A scripted browser for the OAuth tests (set as $BROWSER): GETs the authorization URL and
follows its redirects. The test authorization server approves at once, so the last redirect
lands on the client's loopback listener, exactly where a user's browser would."""

import sys
import urllib.request

with urllib.request.urlopen(sys.argv[1], timeout=30) as resp:
    resp.read()
