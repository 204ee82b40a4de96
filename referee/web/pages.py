"""The dashboard page itself (one page; its script talks to ``/api``)."""

from __future__ import annotations

from flask import Blueprint, render_template

bp = Blueprint("pages", __name__)


@bp.get("/")
def index() -> str:
    return render_template("index.html")
