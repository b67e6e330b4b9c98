"""Signing in with the dashboard's token (only when it has one)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Form
from fastapi.responses import RedirectResponse, Response

from assay.web._auth import COOKIE, safe_next, session_value, token_matches
from assay.web._state import Dashboard, dashboard
from assay.web._templates import page

router = APIRouter(include_in_schema=False)


@router.get("/login")
def login_form(state: Annotated[Dashboard, Depends(dashboard)], next: str = "/") -> Response:
    if state.settings.token is None:
        return RedirectResponse(safe_next(next), status_code=303)
    return page("login.html", nav="", next=safe_next(next), wrong=False)


@router.post("/login")
def login(
    state: Annotated[Dashboard, Depends(dashboard)],
    token: Annotated[str, Form()] = "",
    next: Annotated[str, Form()] = "/",
) -> Response:
    expected = state.settings.token
    if expected is None:
        return RedirectResponse(safe_next(next), status_code=303)
    if not token_matches(expected, token):
        return page("login.html", status_code=401, nav="", next=safe_next(next), wrong=True)
    response = RedirectResponse(safe_next(next), status_code=303)
    response.set_cookie(COOKIE, session_value(expected), httponly=True, samesite="strict", path="/")
    return response


@router.post("/logout")
def logout() -> Response:
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(COOKIE, path="/")
    return response
