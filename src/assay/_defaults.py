"""Defaults the command line shows in its help, importable without the packages that use
them (``assay --help`` must not import SQLAlchemy to say where runs are stored)."""

DEFAULT_STORE_URL = "sqlite:///.assay/assay.db"
STORE_URL_ENV = "ASSAY_STORE"  # overrides the default when no URL is given
