"""The one family of errors a user can cause or fix: a bad config, a damaged file, a machine that cannot do
what the study asks. Each carries a message written for the user (what, where, what would be valid), so
``snakescript.run_logged`` prints it without a traceback; anything else is a bug and gets one.

Every module's own error derives from ``UserError``: ConfigError (config), ToolError with ReadError and
DamagedFileError (native, measure), MonitorError and MonitorCSVError (monitor), EvictionError (pagecache),
StorageProfileError (storage), RemoteEndpointError and RemoteToolError (remote), BuildError (build),
RootNotFound (rootenv), DiskSpaceError (footprint), OverlapError (aggregate), CompressionSettingError
(vocabulary), SourceError (sources), BranchCompressionError (generate), InspectError (inspection),
StorageBenchError (storagebench), RootMetadataError (root_metadata).
"""

from __future__ import annotations


class UserError(Exception):
    """An error with a message for the user; no traceback is needed to act on it."""
