"""The summary's risks the model does not price (issue 15), each said as what is left of
it when the book prices part of it (cost model version 3), with its mitigation and the
role that owns it (issue 24)."""

from __future__ import annotations

__all__ = ["MITIGATION", "RISKS", "risks"]

#: what the model leaves out, said plainly (each a real way the answer could be wrong)
RISKS = [
    "Lock-in: a self-built stack serves one model; a successor model may need new "
    "hardware or new engineering before the servers are paid off.",
    "People: the one or two engineers who build the KV-cache management and load "
    "balancing may leave; the model prices their salary, not their replacement.",
    "Hardware: failures, spare parts and delivery delays beyond the setup months assumed.",
    "Regulation: a rule that stops or restricts use is priced only as a higher discount "
    "rate, not as a sudden stop.",
    "The API side: rate limits, outages, changed terms, or a price move outside the range "
    "assumed.",
    "Demand: the model assumes the planned volume arrives (after a ramp); a project that "
    "is cancelled leaves the servers idle.",
    "Security and compliance: incidents, audits and certifications of an in-house stack.",
]
#: the risks of :data:`RISKS` a book of cost model version 3 can price
#: (:data:`mc_tco.decision.one_page.PRICED_BY`), each said as what the book prices then
PRICED_RISK = {
    "hardware": (2, "Hardware: delivery delays beyond the setup months assumed (the book "
                    "prices spare nodes for failures, not a late delivery)."),
    "stop": (3, "Regulation: a rule that restricts use without stopping it, or a stop "
                "sooner than the book's odds of one (it prices a forced stop as an event: "
                "servers sold that month, reservations paid to the end of their term)."),
    "demand": (5, "Demand: a volume outside the range the book assumes around the plan."),
}
#: the demand risk when the book also prices a cancelled project
CANCEL_TOO = ("Demand: a volume outside the range the book assumes around the plan, or a "
              "cancellation sooner than its odds of one (it prices a cancelled project: "
              "servers sold that month, reservations paid to the end of their term).")


#: each risk of :data:`RISKS` (by position): what limits it, and the role that owns it
MITIGATION = [
    ("buy servers that serve more than one model family, and keep the serving stack "
     "on open tooling (vLLM, SGLang)", "the head of platform engineering"),
    ("document the stack, pair a second engineer on it, and keep the API contract live as "
     "a fallback", "the engineering manager"),
    ("take a delivery date with a penalty in the purchase order, and keep the API serving "
     "until the servers are live", "procurement"),
    ("keep the API account and a second provider ready, and review the rules that apply "
     "to the data each quarter", "legal and compliance"),
    ("negotiate a rate-limit and uptime commitment, and keep a second API provider "
     "integrated", "the product owner of the AI service"),
    ("plan in stages: size the first servers for the volume already measured, not the "
     "plan", "the finance business partner"),
    ("budget the audits and certifications before buying, and run a security review of "
     "the stack", "the CISO"),
]


def risks(priced: dict[str, bool]) -> list[str]:
    """:data:`RISKS`, each one the book prices (``priced``, from
    :func:`mc_tco.decision.one_page.priced_risks`) said as what is left of it, and each
    followed by its mitigation and the role that owns it (:data:`MITIGATION`)."""
    out = _risk_texts(priced)
    return [f"{text} Mitigation: {how}; owner: {who}."
            for text, (how, who) in zip(out, MITIGATION, strict=True)]


def _risk_texts(priced: dict[str, bool]) -> list[str]:
    out = list(RISKS)
    for risk, (i, text) in PRICED_RISK.items():
        if priced.get(risk):
            out[i] = text
    if priced.get("cancel"):
        out[5] = CANCEL_TOO if priced.get("demand") else (
            "Demand: the model assumes the planned volume arrives (after a ramp); it prices "
            "a cancelled project (servers sold that month, reservations paid to the end of "
            "their term), not a smaller one.")
    return out
