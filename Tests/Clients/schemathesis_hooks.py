"""Schemathesis hooks for run.sh (loaded through SCHEMATHESIS_HOOKS).

* `payql_server_error`: what counts as a server error here — an HTTP 5xx, or a GraphQL error with
  `extensions.code: INTERNAL` (PayQL's code for a failure it did not expect; HTTP 200). Schemathesis's own
  `not_a_server_error` also fails every execution error (ST113), which in PayQL's contract are the
  expected answers FORBIDDEN, BAD_USER_INPUT, NOT_FOUND-as-null and NOT_IMPLEMENTED, so run.sh uses this
  check instead.
* Strategies for PayQL's custom scalars (schema/payql.graphql): mostly well-formed values, so
  operations get past input checks and reach the services, with malformed and extreme ones mixed in.
"""
import datetime

import schemathesis
from hypothesis import strategies as st
from schemathesis.graphql import nodes


@schemathesis.check
def payql_server_error(ctx, response, case):
    """Fails on HTTP 5xx or on any error whose `extensions.code` is INTERNAL."""
    if response.status_code >= 500:
        raise AssertionError(f"HTTP {response.status_code}: {response.text[:500]!r}")
    try:
        body = response.json()
    except Exception:
        return None
    errors = body.get("errors") if isinstance(body, dict) else None
    for error in errors or []:
        extensions = error.get("extensions") if isinstance(error, dict) else None
        if isinstance(extensions, dict) and extensions.get("code") == "INTERNAL":
            raise AssertionError(f"INTERNAL error: {error.get('message')!r} at {error.get('path')!r}")
    return None


def _mixed(valid, invalid):
    return st.one_of(valid, valid, valid, invalid).map(nodes.String)


_junk = st.one_of(st.text(max_size=30), st.sampled_from(["", "-1", "1e400", "9" * 40, "\u0000", "1.5", "05", " 1"]))

schemathesis.graphql.scalar("MinorUnits", _mixed(
    st.one_of(st.integers(min_value=0, max_value=2**63 - 1).map(str), st.integers(min_value=100, max_value=10**7).map(str)), _junk))
schemathesis.graphql.scalar("Decimal", _mixed(st.from_regex(r"\A(0|[1-9][0-9]{0,8})(\.[0-9]{1,3})?\Z"), _junk))
schemathesis.graphql.scalar("DateTime", _mixed(
    st.datetimes(min_value=datetime.datetime(1970, 1, 1), max_value=datetime.datetime(2100, 1, 1))
    .map(lambda moment: moment.strftime("%Y-%m-%dT%H:%M:%SZ")),
    st.one_of(_junk, st.sampled_from(["2026-02-30T00:00:00Z", "9999-12-31T23:59:59Z", "0000-01-01T00:00:00Z", "2026-03-19T12:30:45+05:30"]))))
schemathesis.graphql.scalar("PhoneNumber", _mixed(st.one_of(st.from_regex(r"\A[6-9][0-9]{9}\Z"), st.from_regex(r"\A\+91[6-9][0-9]{9}\Z")), _junk))
schemathesis.graphql.scalar("URL", _mixed(st.from_regex(r"\Ahttps://[a-z]{1,12}\.example/[a-z0-9/]{0,20}\Z"), _junk))
schemathesis.graphql.scalar("JSON", st.one_of(
    st.text(max_size=20).map(nodes.String), st.integers(min_value=-2**31, max_value=2**31 - 1).map(nodes.Int),
    st.booleans().map(nodes.Boolean), st.just(nodes.Null)))
