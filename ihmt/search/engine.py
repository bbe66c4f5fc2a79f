"""From a query to a SearchResult: descent, re-ranking, confidence, ambiguity, NOT FOUND.

Re-ranking happens after the exact BM25 candidates are known:
- a clue cross-references: candidates matching both the query and the clue x1.6, one side x0.7;
- an OUTDATED leaf (corrected by a later memory, or holding a superseded fact) ranks after the
  current one and carries its notice; its replacement is pulled in if the descent missed it;
- a query that names a year favours leaves dated in that year, one set "in March" that month;
- near-ties go to the more recent leaf (by the date the text talks about);
- memories saying the same thing about the question's words at different dates are one fact
  over time: the newest answers a question about now, an earlier one a question about before
  (search/intent.py); the others stay listed and are no AMBIGUOUS rivals.
- last, the first five candidates are put in order by gradient-boosted trees fitted on the
  agent-question corpora (search/learned_order.py); a timeline fact answering keeps its place.

Confidence = 0.6 x coverage + 0.4 x margin. Coverage is the share of the query's idf mass that
the best leaf contains; margin is its relative lead over the runner-up. AMBIGUOUS means several
different memories are tied within ambiguity_margin, match the same query words *and* hold at
least AMBIGUOUS_COVERAGE of the question, so nothing in the query tells them apart. NOT FOUND means no leaf matches, or the best one shares no word
with the query (a leaf the semantic extra brought in by meaning alone, not vouched for; the
clue's words count with the question's; for text that is no question, a code search or a
`replaces` phrase, a leader covering under POINTER_COVERAGE of it or sharing a single common
word is no match either), or the question asks for a shape of answer (a phone
number, a port, a version of the subject) that none of the leading memories holds.
"""

from __future__ import annotations

import datetime as _dt
import math
import os
from collections.abc import Callable

from ..config import IHMTConfig
from ..errors import StoreCorruptError
from ..models import Hit, SearchResult, TimeContext
from ..store.catalog import Catalog
from ..store.leaf_files import read_leaf_file
from ..text.dates import year_mentions
from ..text.tokenize import is_term, tokenize
from ..text.vocabulary import normalize
from ..tree.builder import Tree
from ..tree.refs import leaf_ref
from . import change_judge, expansion, learned_order, rivals, unanswered
from .acronyms import (
    abbreviated_terms,
    acronyms_of,
    spelled_subject,
    spells_out,
    told_otherwise,
    unknown_acronyms,
)
from .answer_type import (
    holds_new_value,
    holds_shape,
    names_subject,
    shape_terms,
    shapes_asked,
    shapes_ruling_not_found,
    spelled_out,
    strict_shapes,
    subject_terms,
    values_told,
)
from .bm25 import idf, score_counts, tf_weight
from .clue import linked_name_terms
from .counted import counted_terms, holds_count
from .intent import asked_attribute, asks_history, asks_now, history_cue_at, months_asked
from .namesakes import names_alone, namesakes
from .navigator import Candidate, Navigator, stand_in
from .query import MAX_QUERY_CHARS, parse_query
from .restatement import (
    EARLIER_DESCENT,
    RESTATE_WINDOW,
    find_earlier,
    order_by_time,
    prefer_earlier,
    prefer_news,
    saved_memory,
    tells_change,
)
from .supersession import asked_statement
from .unknown_names import (
    identity_terms,
    named_terms,
    near_known,
    qualifier_terms,
    terms_to_count,
    unknown_names,
    whole_word_terms,
)

STRAY_COVERAGE = 0.4
POINTER_COVERAGE = 0.15  # ... and, for text that is no question, the least share a match holds
COMMON_SHARE = 0.05
# an acronym of this many letters a memory spells out scores as the word itself ("FCM",
# "Firebase Cloud Messaging"); a two-letter one only counts as covered: two initials are
# spelled by chance too often ("PD", "production deployments") to outrank what holds the word
SCORED_ACRONYM = 3
STRAY_WORDS = 1  # a stray match shares at most this many (common) words with the question
CLUE_BOOST = 1.6
CLUE_DEMOTE = 0.7
CLUE_FIT = 0.3  # ... among candidates covering this share of the best coverage of the question
OUTDATED_FACTOR = 0.5
YEAR_BOOST = 1.5
RECENCY_TIE = 1e-6
MONTH_BOOST = 1.3
# a piece of a stored document (a runbook, notes) holds many words of anything; a memory the
# agent saved states one fact on purpose: at equal match the saved memory goes first
DOCUMENT_PRIOR = 0.9
# memories giving other values of the shape asked (_judge_values): among the next few shown,
# scoring at least this share of the best one, saved within this many days of it
VALUE_RIVALS, VALUE_RIVAL_SCORE, VALUE_RIVAL_DAYS = 3, 0.5, 30
AMBIGUOUS_COVERAGE = 0.55  # the tied memories must hold this share of the question
SHAPE_BOOST = 1.3  # a leading candidate holding the shape of answer asked for ("what port")
# values that belong to one named person or thing: held only by a memory naming all of it
NAMED_SHAPES = frozenset(
    ("phone", "email", "username", "birthday", "version", "ip", "network", "port", "price")
)
NAME_WINDOW = 10  # leading candidates compared for the names of the question they hold
NAME_MISS = 0.75  # ... one missing a name another holds keeps this share of its score, per name
SHAPE_WINDOW = 8  # how many leading candidates are read for the shape of their answer
SHAPE_FIT = 0.8  # ... of which those covering this share of the best coverage may move up
CHANGE_CANDIDATES = 5  # later memories read for a change to the statement asked about
CHANGE_WORDS = 6  # ... found by the statement's rarest words
MIN_STATEMENT_WORDS = 3  # a shorter statement names too little to tell its changes apart


class SearchEngine:
    def __init__(
        self,
        tree: Tree,
        catalog: Catalog,
        config: IHMTConfig,
        time_context: Callable[[], TimeContext] | None = None,
        dense=None,
    ) -> None:
        self.tree = tree
        self.catalog = catalog
        self.config = config
        self.navigator = Navigator(tree, config.beam_width)
        self.time_context = time_context or TimeContext
        # optional dense retriever (ihmt/semantic, given by the facade when semantic is on);
        # None keeps search purely lexical
        self.dense = dense

    def search(
        self,
        text: str,
        *,
        clue: str | None = None,
        top_k: int = 5,
        leaf_filter: Callable[[dict], bool] | None = None,
        boost: Callable[[dict, float], float] | None = None,
        as_question: bool = True,
    ) -> SearchResult:
        """``leaf_filter(ref)`` keeps or drops a leaf during the descent (scope, path prefix);
        ``boost(ref, score)`` re-weights a candidate before judging (e.g. code-aware ranking).

        On a catalog marked incomplete (an indexing pass was killed), or when memory files
        cannot be read (the count the last rebuild, check or reconcile recorded, or a matching
        leaf this search was refused), the answer says so: a notice on every answer, and NOT
        FOUND carries no confidence. Two meta lookups; layer_0 is never listed here.

        ``as_question`` False: the text points at memories or code rather than asking, so the
        shape of answer its words might ask for ("total_price", "staging db version") does not
        apply."""
        denied: set[str] = set()
        result = self._search(text, clue, top_k, leaf_filter, boost, denied, as_question)
        blind = []
        why = self.catalog.incomplete()
        if why:
            blind.append(
                f"the index is incomplete ({why}); memories may be missing from this answer — "
                "run `ihmt rebuild`"
            )
        result.unreadable_leaves = max(self.catalog.unreadable(), len(denied))
        if result.unreadable_leaves:
            blind.append(unreadable_notice(result.unreadable_leaves))
        if blind:
            result.index_incomplete = "; and ".join(blind)
            result.notices[:0] = blind
            if result.not_found:
                result.confidence = 0.0
        return result

    def _search(
        self, text, clue, top_k, leaf_filter, boost, denied: set[str], as_question: bool = True
    ) -> SearchResult:
        top_k = max(1, min(int(top_k), 50))
        query = parse_query(text, clue)
        result = SearchResult(query=query.text, clue=query.clue)
        if query.empty:
            result.not_found = True
            result.set_reason("no_words")
            return result
        n, avgdl = self.catalog.corpus_stats()
        result.total_leaves = n
        dfs = self.catalog.document_frequencies(query.all_terms + list(query.partners))
        weights = expansion.add_partners(
            self.navigator.weights(query, n, dfs),
            query.partners,
            {t: idf(dfs.get(t, 0), max(n, 1)) for t in query.partners if dfs.get(t, 0) > 0},
        )
        time = self.time_context()
        facts = time.fact_answers(query.text) if not query.clue_terms else []
        history = asks_history(query.text)
        before = [leaf for leaf, asked in facts if not asked]
        if history and facts and not before:
            # a question about before when the tracker knows only the value now: the earlier
            # state is in a memory it did not read as this fact, so the words decide
            facts = []
        if history and before and facts[0][1] and not year_mentions(query.text):
            # "which database was staging on before the upgrade?": the value before the
            # current one answers; the current one (each memory telling it) follows as what
            # changed since
            now_told = [leaf for leaf, asked in facts if asked]
            facts = [(before[0], True), *((leaf, False) for leaf in now_told + before[1:])]
        if not facts:  # a tracked fact answers through its cue words, not the text's words
            result.missing_words = _surface_words(
                query.text, {t for t in query.terms if not dfs.get(t)}
            )
        # A leaf that holds the value asked for answers this question, even when another fact
        # it states has changed since ("where do I work?" -> the entry that also names the old
        # city): its notices still show, but it is not OUTDATED for this question.
        answering = {leaf_id for leaf_id, asked in facts if asked}
        # ... and a leaf out of date about one value ("I moved to Valencia and work at Acme")
        # is not OUTDATED for a question that does not touch that value ("Acme").
        asked_old = {leaf_id for leaf_id, asked in facts if not asked}
        answering |= time.current_for(set(query.all_terms), asked_old)
        if not weights and self.dense is None and not facts:
            result.not_found = True
            result.set_reason("no_match")
            return result
        root = self.tree.read_root()
        result.total_nodes = int(root.get("counters", {}).get("branches", 0))
        k = max(top_k * 2, 10)
        descent = self.navigator.descend(weights, avgdl, k, root, leaf_filter)
        result.node_reads = descent.node_reads
        result.depth = descent.depth
        candidates, dense = descent.candidates, None
        if self.dense is not None:
            candidates, dense = self._fuse_dense(text, candidates, weights, avgdl, k, leaf_filter)
        if not candidates and not facts:
            result.not_found = True
            result.set_reason("no_match")
            return result
        full_idf = {t: idf(dfs.get(t, 0), max(n, 1)) for t in query.terms}
        # what a what/which question asks for ("which bucket"), unless it asks for now
        now = asks_now(query.text)
        asked_thing = frozenset() if now else asked_attribute(query.text)
        shapes = shapes_asked(query.text) if as_question else ()
        # a place is someone's: only the names the question spells say whose
        places = bool(shapes) and all(shape.places for shape in shapes)
        subject = subject_terms(query.text, names_only=places) if shapes else frozenset()
        # "how many nodes": a number next to the thing counted, not any digit
        counted = counted_terms(query.text) if shapes else frozenset()

        def states_shape(text: str) -> bool:
            return (
                bool(shapes) and holds_shape(text, shapes, subject) and holds_count(text, counted)
            )

        # a memory corrected on something else than what is asked still answers it
        untouched = self._untouched_by_correction(candidates, asked_thing, time, states_shape)
        if untouched:
            answering = answering | untouched
            links = {o: nw for o, nw in time.replaced_by.items() if o not in untouched}
        else:
            links = time.replaced_by
        common = {t for t in query.all_terms if dfs.get(t, 0) >= max(2, COMMON_SHARE * n)}
        if query.clue_terms and as_question:
            # "Ana from SRE": the surname another memory gives that Ana joins the clue
            linked = linked_name_terms(query.text, query.clue_terms, candidates, self._content_of)
            query.clue_terms = query.clue_terms + linked
        acronyms = (
            unknown_acronyms(
                query.text, {t for t in query.terms if dfs.get(t, 0) <= max(3, COMMON_SHARE * n)}
            )
            if as_question
            else {}
        )
        ranked = self._rerank(
            candidates, query, full_idf, time, boost, answering, history, untouched, acronyms, avgdl
        )
        names = named_terms(query.text) if as_question else []
        settings = qualifier_terms(query.terms) if as_question else []
        if history:
            # a question about before names the thing it asks about ahead of the cue ("where
            # did Camila live before ..."); a name after it is often the new value ("before
            # EMQX"), which the earlier memory lacks
            names, settings = _named_before_cue(query.text, names), []
        if names or settings:
            ranked = _prefer_named(ranked, names + settings)
        if shapes:
            ranked = self._prefer_shape(ranked, shapes, subject, states_shape)
        ranked = self._inject_facts(ranked, facts, query)
        ranked = self._pull_replacements(ranked, links, history)
        answers_shape = None
        if shapes:

            def answers_shape(cand) -> bool:
                return states_shape(self._content_of(cand))

            def new_value(text: str, earlier: str) -> bool:
                return holds_new_value(text, earlier, shapes, subject)

        # the question's words naming the shape it asks for ("url"): the time step and the
        # judge of an answer both read them
        shape_words = shape_terms(query.text, shapes) if shapes else frozenset()
        word_idf = self._idf_of(ranked, n)
        ranked = order_by_time(
            ranked,
            query,
            full_idf,
            history,
            links,
            word_idf,
            self._content_of,
            answers_shape,
            asked_thing,
            shape_words,
            new_value if shapes else None,
            subject if any(shape.near_subject for shape in shapes) else frozenset(),
        )
        if history and not year_mentions(query.text) and not months_asked(query.text):
            earlier = prefer_earlier(ranked, query, full_idf, answers_shape)
            if earlier and ranked and earlier[0] is ranked[0]:
                earlier = self._find_earlier(earlier, query, full_idf, n, avgdl, root, leaf_filter)
            ranked = earlier
        elif not history and not years_or_months(query.text) and as_question:
            ranked = self._follow_change(
                ranked,
                full_idf,
                n,
                avgdl,
                root,
                leaf_filter,
                answers_shape,
                new_value if shapes else None,
                now,
                [named for _, named in settings],
                asked_thing,
                shape_words,
            )
        if dense is not None and not history and not query.clue_terms:
            ranked = _lead_by_meaning(ranked, dense, links, now)
        if now and not history and as_question:
            ranked = prefer_news(ranked, links, self._content_of)
        order_ctx = None
        if as_question and not query.clue_terms:
            order_ctx = learned_order.OrderContext(
                question_terms=query.terms,
                idf=full_idf,
                about_before=history,
                corrected=set(links),
                holds_shape=answers_shape,
                names=[named for _, named in names],
                content_of=self._content_of,
                cosine=dense.cosine if dense is not None else {},
                about_now=now,
                asks_shape=bool(shapes),
                word_idf=self._idf_of(ranked[: learned_order.WINDOW], n, word_idf),
            )
            ranked = learned_order.reorder(ranked, order_ctx)
        hits = []
        for cand in ranked[:top_k]:
            hit = self._hit(cand, time, answering, untouched)
            if hit is None:
                if self._denied(cand.ref["id"]):
                    denied.add(cand.ref["id"])
                continue
            result.leaf_reads += 1
            hits.append(hit)
        result.hits = hits
        if not hits:
            result.not_found = True
            result.set_reason("unreadable")
            return result
        self._judge(
            result,
            ranked,
            query,
            common,
            dense,
            history,
            new_value if shapes else None,
            answers_shape,
            shapes,
            subject,
            as_question,
        )
        # memories tied on the question's words, none holding the shape of answer it asks
        # for, are no choice to make: none answers
        ruling = shapes_ruling_not_found(shapes)
        if not result.not_found and ruling:
            self._judge_shape(result, ranked, ruling, subject, names, query.text)
            if result.not_found:
                result.ambiguous, result.candidate_ids = False, []
        if not (result.not_found or result.ambiguous or facts or query.clue_terms) and as_question:
            self._judge_namesakes(result, ranked, query, answers_shape, full_idf, shape_words)
        if (
            shapes
            and not history
            and not (result.not_found or result.ambiguous or facts or query.clue_terms)
            and as_question
        ):
            self._judge_values(result, ranked, shapes, subject, links)
        if not (result.not_found or result.ambiguous or facts) and as_question:
            self._judge_names(result, ranked, query.text, names)
        if not (result.not_found or result.ambiguous or facts) and order_ctx is not None:
            self._judge_unanswered(
                result,
                order_ctx,
                query.text,
                dfs,
                n,
                dense is not None,
                shape_words,
            )
        if not (result.not_found or result.ambiguous or facts or history) and order_ctx is not None:
            self._judge_rivals(result, order_ctx, query.text, shapes, subject, dense is not None)
        for hit in hits:
            for notice in hit.notices:
                if notice not in result.notices:
                    result.notices.append(notice)
        return result

    # -- semantic fusion (only when self.dense is set; policy lives in ihmt/semantic) -------
    def _fuse_dense(self, text: str, cands: list, weights: dict, avgdl: float, k: int, leaf_filter):
        """The lexical candidates plus the k leaves nearest in meaning, each scored by fusing
        its exact BM25 with its dense score; returns (candidates, the query's DenseHits or None)."""
        dense = self.dense.search(text, [c.ref["id"] for c in cands])
        if dense is None:  # model unavailable: the lexical answer stands
            return cands, None
        pool = {c.ref["id"]: c for c in cands}
        for leaf_id in dense.top[:k]:
            if leaf_id not in pool:
                cand = self._dense_candidate(leaf_id, weights, avgdl)
                if cand is not None and (leaf_filter is None or leaf_filter(cand.ref)):
                    pool[leaf_id] = cand
        fused = dense.fuse({i: c.score for i, c in pool.items()})
        for leaf_id, cand in pool.items():
            cand.score = fused[leaf_id]
        return sorted(pool.values(), key=lambda c: (-c.score, c.ref["id"])), dense

    def _dense_candidate(self, leaf_id: str, weights: dict, avgdl: float) -> Candidate | None:
        """A leaf found by meaning: its reference (term counts included) comes from its parent
        branch, as in the descent; the leaf file is read only if the parent cannot be."""
        path = self.path_of(leaf_id)
        try:
            parent = self.tree.read_branch(path[-2]) if len(path) > 2 else self.tree.read_root()
            siblings = parent.get("children") or parent.get("entries") or []
            ref = next((c for c in siblings if c["id"] == leaf_id and c["kind"] == "leaf"), None)
        except (OSError, StoreCorruptError):
            ref = None
        if ref is None:
            leaf = self._read_leaf(leaf_id)
            if leaf is None:
                return None
            ref = leaf_ref(leaf)
        return Candidate(ref, path, score_counts(ref["tf"], ref["dl"], weights, avgdl))

    # -- re-ranking -------------------------------------------------------------------------
    def _rerank(
        self,
        cands: list[Candidate],
        query,
        full_idf: dict,
        time: TimeContext,
        boost=None,
        answering: frozenset[str] | set[str] = frozenset(),
        history: bool = False,
        untouched: frozenset[str] | set[str] = frozenset(),
        acronyms: dict[str, str] | None = None,
        avgdl: float = 1.0,
    ) -> list:
        """``acronyms``: the question's acronyms few memories hold (term -> letters), which a
        memory spelling them out matches (search/acronyms.py) as if it held the acronym: the
        word counts in its coverage and its score (``avgdl``: the mean length BM25 uses)."""
        spelled_score: dict[str, float] = {}
        years = set(year_mentions(query.text))
        months = months_asked(query.text) if history else set()
        total_idf = math.fsum(full_idf.values()) or 1.0
        for cand in cands:
            tf = cand.ref["tf"]
            cand.matched = {t for t in query.all_terms if t in tf}
            matched_q = [t for t in query.terms if t in tf]
            if acronyms:
                # "DRF" of the question, "Django REST Framework" of the memory
                text = self._content_of(cand)
                spelled = [
                    t
                    for t, letters in acronyms.items()
                    if t not in tf and spells_out(text, letters)
                ]
                cand.matched.update(spelled)
                matched_q += spelled
                dl = int(cand.ref.get("dl") or 0)
                spelled_score[cand.ref["id"]] = math.fsum(
                    full_idf.get(t, 0.0) * tf_weight(1, dl, avgdl)
                    for t in spelled
                    if len(acronyms[t]) >= SCORED_ACRONYM
                )
            cand.coverage = (
                math.fsum(full_idf[t] for t in matched_q) / total_idf if query.terms else 1.0
            )
        # a clue picks among the memories that answer the question: one that matches the clue
        # but holds little of the question ("Ana Beltrán (SRE) prefers Slack" for "when is Ana
        # on holiday?" + "Ana from SRE") is about the clue, not an answer
        fit = CLUE_FIT * max((c.coverage for c in cands), default=0.0)
        answering_clue = any(
            c.coverage >= fit and any(t in c.ref["tf"] for t in query.clue_terms) for c in cands
        )
        for cand in cands:
            tf = cand.ref["tf"]
            score = cand.score + spelled_score.get(cand.ref["id"], 0.0)
            if query.clue_terms:
                answers = cand.coverage >= fit or not query.terms
                has_c = any(t in tf for t in query.clue_terms)
                if answers and has_c:
                    score *= CLUE_BOOST
                elif answers and not answering_clue:
                    pass  # no answer matches the clue: it cannot pick, the question decides
                else:
                    score *= CLUE_DEMOTE
            date = cand.ref.get("date") or ""
            in_year = bool(years) and date[:4].isdigit() and int(date[:4]) in years
            if in_year:
                score *= YEAR_BOOST
            elif history:
                pass  # an earlier state is asked for: a corrected memory may be the answer
            elif _is_outdated(cand.ref["id"], time, answering, untouched):
                score *= OUTDATED_FACTOR
            if months and date[5:7].isdigit() and int(date[5:7]) in months:
                score *= MONTH_BOOST
            if not saved_memory(cand):
                score *= DOCUMENT_PRIOR
            if boost is not None:
                score = boost(cand.ref, score)
            cand.adjusted = score
        cands.sort(key=lambda c: (-c.adjusted, c.ref["id"]))
        # near-ties: the more recent memory first (stable bubble over adjacent pairs)
        changed = True
        while changed:
            changed = False
            for i in range(len(cands) - 1):
                a, b = cands[i], cands[i + 1]
                close = a.adjusted - b.adjusted <= RECENCY_TIE * max(a.adjusted, 1e-9)
                if close and (b.ref.get("date") or "") > (a.ref.get("date") or ""):
                    cands[i], cands[i + 1] = b, a
                    changed = True
        return cands

    def _follow_change(
        self,
        ranked: list,
        full_idf: dict,
        n: int,
        avgdl: float,
        root,
        keep,
        answers_shape=None,
        new_value=None,
        now: bool = False,
        settings: list | None = None,
        asked_thing: frozenset[str] = frozenset(),
        shape_words: frozenset[str] = frozenset(),
    ):
        """A question about now whose leading memory was changed by a later one in other
        words ("resized from CX22 to CX32", "the general node group now runs m7g.xlarge"):
        the later one answers, the leader follows marked OUTDATED for this question. One
        descent, for the rare words of the statement asked about, among memories dated after
        the leader (search/supersession.py); the fitted judge (search/change_judge.py)
        picks which of them, if any, gives the statement's new value."""
        if not ranked or getattr(ranked[0], "pinned", False):
            return ranked
        lead = ranked[0]
        lead_date = lead.ref.get("date") or ""
        lead_is_memory = saved_memory(lead)
        lead_text = self._content_of(lead)
        statement = asked_statement(lead_text, full_idf)
        words = set(parse_query(statement).terms)
        if not statement or len(words) < MIN_STATEMENT_WORDS:
            return ranked
        dfs = self.catalog.document_frequencies(words)
        # a value named in the statement and in its change is in two memories at least
        rare = {t for t in words if 0 < dfs.get(t, 0) <= max(3, COMMON_SHARE * n)}
        if not rare:
            return ranked
        # the change shares the statement's rarest words, so each is in two memories at
        # least: a descent for those alone opens only the branches holding them, however
        # large the store
        asked = sorted((t for t in rare if dfs[t] >= 2), key=lambda t: (dfs[t], t))
        asked = asked[:CHANGE_WORDS]
        if not asked:
            return ranked
        weights = {t: idf(dfs[t], max(n, 1)) for t in asked}

        def later(ref: dict) -> bool:
            return (ref.get("date") or "") > lead_date and (keep is None or keep(ref))

        descent = self.navigator.descend(weights, avgdl, CHANGE_CANDIDATES, root, later)
        # whether it holds the shape asked for and is about the same thing (the question's
        # settings, what a which-question asks for) are the judge's inputs, not filters: a
        # correction often leaves the setting out or says "oficina 212" for "room"
        lead_tf = set(lead.ref.get("tf") or ())
        found = [
            cand
            for cand in descent.candidates
            if cand.ref["id"] != lead.ref["id"]
            and saved_memory(cand)
            and cand.ref.get("project") == lead.ref.get("project")
            and not change_judge.swaps_setting(
                set(cand.ref.get("tf") or ()), lead_tf, settings or ()
            )
        ]
        if not found:
            return ranked
        word_idf = self._idf_of(
            [lead, *found], n, {t: idf(dfs.get(t, 0), max(n, 1)) for t in words}
        )
        context = change_judge.ChangeContext(
            statement_terms=words,
            rare=rare,
            word_idf=word_idf,
            question_idf=full_idf,
            lead_text=lead_text,
            statement=statement,
            lead_date=lead_date,
            lead_is_memory=lead_is_memory,
            lead_matched=set(lead.matched),
            lead_terms=frozenset(lead.ref.get("tf") or ()),
            found=len(found),
            asks_now=now,
            answers_shape=answers_shape,
            new_value=new_value,
            ranked_ids=[c.ref["id"] for c in ranked[: learned_order.WINDOW]],
            settings=[tuple(word) for word in settings or ()],
            asked_thing=asked_thing,
            shape_words=shape_words,
        )
        chosen = change_judge.choose(found, [self._content_of(c) for c in found], context)
        if chosen is None:
            return ranked
        cand = found[chosen]
        present = next((c for c in ranked if c.ref["id"] == cand.ref["id"]), None)
        newer = present or cand
        stand_in(newer, lead)
        lead.restated = True
        lead.changed_by = newer
        return [newer] + [c for c in ranked if c is not newer]

    def _find_earlier(self, ranked: list, query, full_idf: dict, n, avgdl, root, leaf_filter):
        """The state before the change the leader tells of, by one more descent among older
        memories (restatement.find_earlier), within the search's own scope."""

        def descend(weights: dict, keep) -> list:
            def kept(ref: dict) -> bool:
                return keep(ref) and (leaf_filter is None or leaf_filter(ref))

            return self.navigator.descend(weights, avgdl, EARLIER_DESCENT, root, kept).candidates

        def rarity(words: set[str]) -> dict[str, float]:
            dfs = self.catalog.document_frequencies(words)
            return {t: idf(dfs.get(t, 0), max(n, 1)) for t in words}

        return find_earlier(ranked, query, full_idf, self._content_of, descend, rarity)

    def _prefer_shape(
        self, cands: list, shapes, subject: frozenset[str], states: Callable[[str], bool]
    ) -> list:
        """Among the leading candidates, one holding the shape of answer asked for (a port, a
        time of day, a version of the subject; ``states`` tells it from a text) goes ahead of
        one that only names the subject."""
        window = cands[:SHAPE_WINDOW]
        # only a candidate about as much about the question as the best one may move up: a
        # memory holding a time but few of the words asked is no answer to "what time is X"
        fit = SHAPE_FIT * max((c.coverage for c in window), default=0.0)
        for cand in window:
            if cand.coverage >= fit and states(self._content_of(cand)):
                cand.adjusted *= SHAPE_BOOST
            # names the subject and holds a value of the shape asked: "Luis Ortega's mobile:
            # +34 ..." answers "Luis Ortega's phone number", and "Grafana and Prometheus now
            # run on mon-03.faena.internal" "which host is Grafana on these days?", though each
            # shares only the name with the question (a stray match otherwise)
            cand.names_asked_value = bool(
                subject & cand.matched and holds_shape(self._content_of(cand), shapes, subject)
            )
        return sorted(cands, key=lambda c: (-c.adjusted, c.ref["id"]))

    def _judge_shape(
        self, result: SearchResult, ranked: list, shapes, subject, names=(), question: str = ""
    ) -> None:
        """NOT FOUND when the question asks for a shape no answer can lack (a phone number, a
        port, a version of the subject) and none of the leading memories holds one: they are
        about the subject, but do not say what was asked."""
        lead = ranked[0]
        if getattr(lead, "pinned", False):
            return
        named_value = any(shape.name in NAMED_SHAPES for shape in shapes)
        window = ranked[:SHAPE_WINDOW]
        # names no leading memory holds at all are judged apart ("unknown_name")
        held_names = [
            (spelled, set(named))
            for spelled, named in names
            if any(set(named) & c.matched for c in window)
        ]
        spelled = spelled_out(question) if subject else frozenset()
        acronyms = unknown_acronyms(question, set(subject)) if subject else {}
        for cand in window:
            # another person's phone number is no answer to Irene's: when the question names
            # someone or something, a memory holding the shape must name it too
            if subject and not names_subject(subject, cand.matched):
                if not (cand is lead and subject <= spelled):
                    continue
            text = self._content_of(cand)
            # ... all of its name: "Jordi Martí's number" is not another Jordi's (a name
            # the memory writes as its acronym is held: "the MUC Redis" for "the Moodle
            # Universal Cache Redis")
            if named_value and any(
                not (
                    named <= cand.matched
                    or named <= cand.matched | abbreviated_terms(written, text)
                    or whole_word_terms(written) <= cand.matched
                )
                for written, named in held_names
            ):
                continue
            # ... and an acronym of the question the memory spells out names the thing whose
            # value it gives: "TensorRT 8.6" is the TRT version
            own = subject | spelled_subject(text, acronyms, cand.ref["tf"]) if acronyms else subject
            # ... and so does the acronym the memory writes for a name the question spells out:
            # "RGI 7.0" is the Randolph Glacier Inventory's version
            for written, named in held_names:
                if named & subject and not named <= cand.matched:
                    own = own | acronyms_of(written, text)
            if cand.coverage > 0 and holds_shape(text, shapes, own):
                return
        result.not_found = True
        result.set_reason("lacks_shape", shape=shapes[0].name, coverage=lead.coverage)

    def _settle_by_change(
        self, result: SearchResult, tied: list, new_value: Callable[[str, str], bool] | None
    ) -> bool:
        """Memories tied on the question, the newest of which tells of a change ("Airflow prod
        is now on 2.9.3", "Se actualizó Grafana a 11.1.4") and, when a shape of answer is asked,
        holds a value none of the others holds: they are one fact's old and new values, not a
        choice. The newest answers, listed first; the others follow marked OUTDATED. True when
        settled so."""
        newest = max(tied, key=_date_of)
        others = [c for c in tied if c is not newest]
        if any(_date_of(c) >= _date_of(newest) for c in others):
            return False
        text = self._content_of(newest)
        if not saved_memory(newest) or not tells_change(text):
            return False
        if new_value is not None and not all(new_value(text, self._content_of(c)) for c in others):
            return False
        by_id = {h.leaf_id: h for h in result.hits}
        if newest.ref["id"] not in by_id:
            return False
        notice = _changed_notice(newest)
        for cand in others:
            hit = by_id.get(cand.ref["id"])
            if hit is not None and not hit.outdated:
                hit.outdated = True
                hit.notices.append(notice)
        result.hits.sort(key=lambda h: h.leaf_id != newest.ref["id"])
        return True

    def _tell_one_value(self, tied: list, shapes, subject: frozenset[str]) -> bool:
        """Memories tied on a question that asks for a shape of answer, each giving the same
        one value of it for the subject ("Marta se muda a Sevilla", later "Marta ya vive en
        Sevilla"): they tell one answer, which is no choice to ask the user about."""
        whole = _whole_values(shapes)
        if not whole:
            return False
        told = {values_told(self._content_of(c), whole, subject) for c in tied}
        return len(told) == 1 and len(next(iter(told))) == 1

    def _judge_values(
        self, result: SearchResult, ranked: list, shapes, subject: frozenset[str], links: dict
    ) -> None:
        """AMBIGUOUS when the question asks for a value ("what port does the dev server run
        on?") and saved memories a little below the best one give other values of it, written
        within a month of it and neither telling of a change: "bibliolend-api on 8080" and
        "the kiosk front end on 3000" are two dev servers, and the question does not say
        which. Values saved months apart, or a later one saying "now" or "moved to", are one
        thing over time (order_by_time, _settle_by_change), not a choice."""
        whole = _whole_values(shapes)
        if not whole or getattr(ranked[0], "pinned", False):
            return
        shown = {h.leaf_id for h in result.hits}
        # a memory order_by_time grouped with the leader as the same fact may still be a rival:
        # saved within a month, neither telling of a change, giving another value ("the
        # webhooks app listens on 8081" and "the admin app on 8080", both saved one week)
        current = [c for c in ranked if c.ref["id"] in shown and not result_is_outdated(c, result)]
        if len(current) < 2 or not saved_memory(current[0]):
            return
        lead = current[0]
        lead_values = values_told(self._content_of(lead), whole, subject)
        if not lead_values:
            return
        rivals = []
        for cand in current[1 : 1 + VALUE_RIVALS]:
            if cand.adjusted < VALUE_RIVAL_SCORE * lead.adjusted or not saved_memory(cand):
                continue
            if cand.ref["id"] in links or lead.ref["id"] in links:
                continue  # an old value a link marks as corrected
            if _days_apart(cand, lead) > VALUE_RIVAL_DAYS:
                continue
            values = values_told(self._content_of(cand), whole, subject)
            if not values or values & lead_values:
                continue
            if tells_change(self._content_of(max(cand, lead, key=_date_of))):
                continue
            rivals.append(cand)
        if rivals:
            result.ambiguous = True
            result.candidate_ids = [c.ref["id"] for c in [lead, *rivals]]
            shape = next(s.name for s in whole if s in shapes)
            result.set_reason("values", n=1 + len(rivals), shape=shape)

    def _judge_namesakes(
        self, result: SearchResult, ranked: list, query, answers, idf_of, shape_words=frozenset()
    ) -> None:
        """AMBIGUOUS when the question names a first name alone and the memories that answer
        it speak of two people of that name (search/namesakes.py)."""
        firsts = names_alone(query.text)
        if not firsts or getattr(ranked[0], "pinned", False):
            return
        # the shown hits, in rank order (a vague search at 50,000 memories ranks thousands)
        shown = {h.leaf_id for h in result.hits}
        current = []
        for cand in ranked:
            if cand.ref["id"] in shown:
                shown.discard(cand.ref["id"])
                if not getattr(cand, "restated", False):
                    current.append(cand)
                if not shown:
                    break
        weight = {t: idf_of.get(t, 0.0) for t in query.terms}
        found = namesakes(
            query.text,
            current,
            self._content_of,
            answers or (lambda _c: True),
            weight,
            firsts,
            shape_words,
        )
        if found is not None:
            result.ambiguous = True
            result.candidate_ids = [c.ref["id"] for c in found.candidates]
            result.set_reason("namesakes", name=found.first, people=found.people)

    def _judge_names(self, result: SearchResult, ranked: list, question: str, names) -> None:
        """NOT FOUND when the question names something no memory mentions ("how much do we
        pay for Datadog?" where no memory names Datadog): the memories that match its other
        words are about something else (search/unknown_names.py)."""
        # (a memory close in meaning does not change this: a name has no synonym)
        if not names or getattr(ranked[0], "pinned", False):
            return
        dfs = self.catalog.document_frequencies(terms_to_count(names))
        unknown = unknown_names(question, names, dfs)
        # a shortened or misspelt name ("Prom" for Prometheus, "Andew" for Andrew) is known
        # when a leading memory holds a word it begins or one a letter away from it
        held = {t for c in ranked[:SHAPE_WINDOW] for t in c.ref.get("tf") or ()}
        unknown = [name for name in unknown if not near_known(identity_terms(name), held)]
        if unknown:
            # ... and so is an acronym a leading memory spells out ("the data protection
            # impact assessment" for DPIA), or a name it writes as its acronym
            texts = [self._content_of(c) for c in ranked[:SHAPE_WINDOW]]
            unknown = [name for name in unknown if not told_otherwise(name[0], texts)]
        if unknown:
            result.not_found = True
            result.set_reason("unknown_name", names=[surface for surface, _ in unknown])

    def _judge_unanswered(
        self,
        result: SearchResult,
        ctx,
        question: str,
        dfs: dict,
        n: int,
        semantic: bool,
        shape_words: frozenset[str],
    ) -> None:
        """A BEST the fitted judge (search/unanswered.py) takes for no answer becomes NOT FOUND,
        its reason naming the closest memory's date: the memory knows the subject, not what
        was asked."""
        if ctx.scored is None or not result.hits or not unanswered.judges(question):
            return
        thing = asked_attribute(question)
        x = unanswered.features(
            ctx.scored,
            result.hits[0].leaf_id,
            ctx.question_terms,
            dfs,
            n,
            result.confidence,
            len(result.missing_words),
            thing,
            self.catalog.document_frequencies(thing) if thing else {},
            [named for _, named in named_terms(question)],
            shape_words,
        )
        if x is None:
            return
        chance = unanswered.probability(x, semantic)
        if chance < unanswered.THRESHOLD:
            return
        result.not_found = True
        result.set_reason(
            "no_answer", date=result.hits[0].timestamp[:10], probability=round(chance, 3)
        )

    def _judge_rivals(
        self,
        result: SearchResult,
        ctx,
        question: str,
        shapes,
        subject: frozenset[str],
        semantic: bool,
    ) -> None:
        """A BEST whose runner-up the fitted judge (search/rivals.py) takes for another answer
        to the question becomes AMBIGUOUS between the two: two jobs with a timeout each, not
        one fact said twice or corrected."""
        if ctx.scored is None or len(result.hits) < 2:
            return
        whole = _whole_values(shapes)

        def values_of(cand) -> frozenset[str]:
            return values_told(self._content_of(cand), whole, subject)

        judged = rivals.features(
            ctx.scored,
            result.hits[0].leaf_id,
            ctx.question_terms,
            ctx.word_idf,
            result.confidence,
            values_of if whole else None,
            self._content_of,
            tells_change,
            bool(names_alone(question)),
        )
        if judged is None:
            return
        x, rival = judged
        shown = {h.leaf_id for h in result.hits}
        if rival.ref["id"] not in shown or rivals.probability(x, semantic) < rivals.THRESHOLD:
            return
        result.ambiguous = True
        result.candidate_ids = [result.hits[0].leaf_id, rival.ref["id"]]
        result.set_reason("rivals", n=2)

    def _content_of(self, cand: Candidate) -> str:
        """A candidate's text, read once (it is shown as a hit right after anyway)."""
        content = getattr(cand, "content", None)
        if content is None:
            leaf = self._read_leaf(cand.ref["id"])
            if leaf is None:  # unreadable: left unset, so showing it as a hit reads again
                return ""
            content = cand.content = leaf.content
        return content

    def _idf_of(
        self, ranked: list, n: int, known: dict[str, float] | None = None
    ) -> dict[str, float]:
        """Rarity of every word of the leading candidates (one catalog lookup), so that
        telling restatements apart weighs "benidorm" and not "memory". ``known``: rarities
        already looked up in this search; only the words new to it are looked up."""
        known = known or {}
        words = {t for c in ranked[:RESTATE_WINDOW] for t in (c.ref.get("tf") or ())}
        new = words - known.keys()
        dfs = self.catalog.document_frequencies(new) if new else {}
        # a word in half the memories or more (a tag every saved memory has) says nothing
        common = (lambda t: dfs.get(t, 0) * 2 >= n) if n >= 20 else (lambda t: False)
        looked = {t: 0.0 if common(t) else idf(dfs.get(t, 0), max(n, 1)) for t in new}
        return {t: known[t] if t in known else looked[t] for t in words}

    def _inject_facts(self, ranked: list, facts: list[tuple[str, bool]], query) -> list:
        """A question about a tracked fact is answered by the memory holding the value asked
        for (now, or in the year named), ahead of lexical matches; the memories holding the
        other values follow as history. Never AMBIGUOUS between a value and its successor."""
        if not facts:
            return ranked
        top = max((c.adjusted for c in ranked), default=1.0) or 1.0
        by_id = {c.ref["id"]: c for c in ranked}
        front = []
        for index, (leaf_id, answers) in enumerate(facts):
            cand = by_id.pop(leaf_id, None) or self._candidate_for(leaf_id, None)
            if cand is None:
                continue
            cand.adjusted = top * (2.0 if answers else 1.2) - index * 1e-6
            cand.coverage = 1.0
            cand.matched = set(query.terms)
            cand.pinned = answers
            front.append(cand)
        front.sort(key=lambda c: -c.adjusted)
        return front + [c for c in ranked if c.ref["id"] in by_id]

    def _untouched_by_correction(
        self,
        cands: list,
        asked: frozenset[str],
        time: TimeContext,
        states_shape: Callable[[str], bool] = lambda _text: False,
    ) -> set[str]:
        """Corrected memories among ``cands`` that state what the question asks for ("which
        bucket ...") when their correction does not: the backup note whose retention a later
        memory corrected still answers "which bucket do the backups go to?". ``asked``: the
        terms of the thing asked, empty for a question about now or without one;
        ``states_shape``: whether a text holds the shape of answer asked ("which host" is
        stated by "on storage-01", which does not say "host")."""
        if not time.replaced_by or not asked:
            return set()
        by_id = {c.ref["id"]: c for c in cands}
        out = set()
        for cand in cands:
            new_id = time.replaced_by.get(cand.ref["id"])
            if not new_id:
                continue
            named = asked <= set(cand.ref["tf"])
            if not named and not states_shape(self._content_of(cand)):
                continue
            newer = by_id.get(new_id)
            if newer is not None:
                new_terms, new_text = set(newer.ref["tf"]), None  # read only when needed
            else:
                leaf = self._read_leaf(new_id)
                if leaf is None:
                    continue
                new_terms, new_text = set(leaf_ref(leaf)["tf"]), leaf.content
            # the correction names the thing asked ("version"), but maybe of another subject:
            # "now on Django 5.2.7" leaves "Django REST Framework 3.16" standing for "which
            # DRF version" (the shape, read next to its subject, says whose value it is)
            touched = bool(asked & new_terms)
            if touched and not states_shape(self._content_of(cand)):
                continue
            if touched or not named:  # the correction's text, read only when it decides
                text = new_text if new_text is not None else self._content_of(newer)
                if states_shape(text):
                    continue
            out.add(cand.ref["id"])
        return out

    def _pull_replacements(self, ranked: list, links: dict, history: bool = False) -> list:
        present = {c.ref["id"] for c in ranked}
        out = []
        for cand in ranked:
            new_id = links.get(cand.ref["id"])
            if new_id and new_id not in present:
                new = self._candidate_for(new_id, cand)
                if new is not None:
                    out.append(new)
                    present.add(new_id)
            out.append(cand)
        if history:  # the earlier state is asked for: the corrected memory may lead
            return out
        # a correction answers what its old memory answered: it ranks where the old one would
        # have ranked before it was marked OUTDATED, and is no stray match when the old one was
        # not ("CX22 to CX32" answers "what size is the Hetzner VPS?" as the note it corrects)
        by_id = {c.ref["id"]: c for c in out}
        raised = False
        for old_id, new_id in links.items():
            if old_id in by_id and new_id in by_id:
                old, new = by_id[old_id], by_id[new_id]
                if old.score > getattr(new, "adjusted", 0.0):
                    new.adjusted, raised = old.score, True
                new.answers_for = old
        if raised:  # a fact's own answer stays first
            out.sort(key=lambda c: (not getattr(c, "pinned", False), -getattr(c, "adjusted", 0.0)))
        # a corrected memory never outranks its correction
        position = {c.ref["id"]: i for i, c in enumerate(out)}
        for old_id, new_id in links.items():
            if old_id in position and new_id in position and position[old_id] < position[new_id]:
                new = out.pop(position[new_id])
                out.insert(position[old_id], new)
                position = {c.ref["id"]: i for i, c in enumerate(out)}
        return out

    def _candidate_for(self, leaf_id: str, old: Candidate | None) -> Candidate | None:
        leaf = self._read_leaf(leaf_id)
        if leaf is None:
            return None
        ref = leaf_ref(leaf)
        cand = Candidate(ref, self.path_of(leaf_id), old.score if old else 0.0)
        cand.adjusted = old.adjusted if old else 0.0
        cand.coverage = old.coverage if old else 0.0
        cand.matched = set(old.matched) if old else set()
        cand.content = leaf.content
        return cand

    def path_of(self, node_id: str) -> list[str]:
        path = [node_id]
        current = node_id
        for _ in range(64):
            parent = self.catalog.parent_of(current)
            if parent is None:
                break
            path.append(parent)
            current = parent
        path.append("root")
        return list(reversed(path))

    def _read_leaf(self, leaf_id: str):
        """The leaf file the catalog points to, or None when it is gone or unreadable (a
        concurrent forget, a damaged file): a search skips it rather than failing."""
        row = self.catalog.leaf_row(leaf_id)
        if row is None:
            return None
        try:
            return read_leaf_file(self.tree.layout.root / row["path"])
        except (OSError, StoreCorruptError):
            return None

    def _denied(self, leaf_id: str) -> bool:
        """True when the leaf file exists but this process may not read it (not damage)."""
        row = self.catalog.leaf_row(leaf_id)
        if row is None:
            return False
        path = self.tree.layout.root / row["path"]
        return path.exists() and not os.access(path, os.R_OK)

    def _hit(
        self,
        cand: Candidate,
        time: TimeContext,
        answering: frozenset[str] | set[str] = frozenset(),
        untouched: frozenset[str] | set[str] = frozenset(),
    ) -> Hit | None:
        ref = cand.ref
        content = getattr(cand, "content", None)
        leaf = None
        if content is None:
            leaf = self._read_leaf(ref["id"])
            if leaf is None:
                return None
            content = leaf.content
        notices = list(time.outdated.get(ref["id"], []))
        outdated = _is_outdated(ref["id"], time, answering, untouched)
        if ref["id"] in untouched:
            notices = [
                f"PARTLY CORRECTED: {time.replaced_by[ref['id']]} later corrected part of this "
                "memory, not what was asked"
            ]
        newer = getattr(cand, "changed_by", None)
        if newer is not None:
            outdated = True
            notices.append(_changed_notice(newer))
        return Hit(
            leaf_id=ref["id"],
            score=round(cand.adjusted, 4),
            content=content,
            path=cand.path,
            timestamp=ref.get("date", ""),
            source=ref.get("source", ""),
            domain=ref.get("domain", ""),
            title=ref.get("title", ""),
            excerpt=ref.get("excerpt", ""),
            tags=list(ref.get("tags", [])),
            span=dict(ref.get("span") or (leaf.span if leaf else {})),
            outdated=outdated,
            notices=notices,
            matched_terms=sorted(cand.matched),
            coverage=round(cand.coverage, 3),
        )

    # -- judgement ---------------------------------------------------------------------------
    def _judge(
        self,
        result: SearchResult,
        ranked: list,
        query,
        common: set[str],
        dense=None,
        history: bool = False,
        new_value: Callable[[str, str], bool] | None = None,
        answers_shape: Callable[[Candidate], bool] | None = None,
        shapes: tuple = (),
        subject: frozenset[str] = frozenset(),
        as_question: bool = True,
    ) -> None:
        best = ranked[0]
        if dense:
            result.meaning = True
            result.meaning_answers = [h.leaf_id for h in result.hits if dense.answers(h.leaf_id)]
            result.meaning_alone = [
                i for i in result.meaning_answers if dense.cosine.get(i, 0.0) >= dense.fusion.high
            ]
        current = [
            c
            for c in ranked
            if not getattr(c, "restated", False) and (history or not result_is_outdated(c, result))
        ]
        if dense:  # a leaf brought in by meaning alone is no rival unless its meaning answers
            current = [c for c in current if c.matched or dense.answers(c.ref["id"])]

        def stray_match(cand, weak: Callable[[Candidate], bool] | None = None) -> bool:
            # a correction is about what the memory it corrects was about (_pull_replacements)
            weak = weak or stray_word
            seen = {id(cand)}
            corrected = getattr(cand, "answers_for", None)
            while corrected is not None and id(corrected) not in seen:
                if not weak(corrected):
                    return False
                seen.add(id(corrected))
                corrected = getattr(corrected, "answers_for", None)
            return weak(cand)

        def stray_word(cand) -> bool:
            # one common word ("Marta", "deploy") is a stray match; two of them together in one
            # memory ("Marta" and "live") are about the question even when each is common. A
            # memory fusion put first by meaning on a stray word gives way to a word match
            # below. After AMBIGUOUS the agent's clue says which memory is meant ("how long do we
            # keep the logs?" + "the CloudFront access logs"): the words the memory shares
            # with the question and the clue together tell whether it is about them
            matched = [t for t in query.all_terms if t in cand.matched]
            stray = (
                cand.coverage < STRAY_COVERAGE
                and all(t in common for t in matched)
                and len(matched) <= STRAY_WORDS
                and not getattr(cand, "names_asked_value", False)
            )
            return bool(query.terms) and stray

        def shares_no_word(cand) -> bool:
            # what NOT FOUND asks of the leader: a stray word is a weak match, not no match. A
            # paraphrase shares one word with its memory as often as a question about
            # something never saved does: over 121 agent-question corpora, NOT FOUND for a
            # stray word was false 83 times and right 21 times, and a floor on the share
            # covered alone (15 %) false 120 times and right 21 times (the fitted judge,
            # _judge_unanswered, still catches most of those). A leader holding words the
            # question's words go with in answers is no stray either: over 163 corpora such
            # leaders sharing none of the question's own words were the answer 97 times of
            # 142, and NOT FOUND for them right 8 times
            if not query.terms or any(t in cand.matched for t in query.all_terms):
                return False
            tf = cand.ref.get("tf") or {}
            return not any(t in tf for t in query.partners)

        def thin_match(cand) -> bool:
            # text pointing at code or memories (a symbol search, a `replaces` phrase) gets
            # none of the question judges after this one: a leader covering under
            # POINTER_COVERAGE of it, or sharing one common word, is no match there
            return bool(query.terms) and (cand.coverage < POINTER_COVERAGE or stray_word(cand))

        if (
            dense
            and current
            and stray_match(current[0])
            and not dense.answers(current[0].ref["id"])
        ):
            # meaning put first a memory it does not vouch for, sharing a stray word: a
            # memory that matches the question's words answers instead
            shown = {h.leaf_id for h in result.hits}
            better = next(
                (
                    c
                    for c in current[1:SHAPE_WINDOW]
                    if c.ref["id"] in shown and (not stray_match(c) or dense.answers(c.ref["id"]))
                ),
                None,
            )
            if better is not None:
                current.remove(better)
                current.insert(0, better)
                result.hits.sort(key=lambda h: h.leaf_id != better.ref["id"])
        lead = current[0] if current else best
        rivals = [c for c in current[1:]]
        s1 = lead.adjusted
        # the runner-up is the best-scored rival, wherever the ordering stages put it
        s2 = max((c.adjusted for c in rivals), default=0.0)
        margin = 1.0 if s1 <= 0 else max(0.0, min(1.0, (s1 - s2) / s1))
        coverage = lead.coverage
        # semantic (only with DenseHits from self.dense): a close meaning also answers
        lead_id = lead.ref["id"]
        covered = max(coverage, dense.coverage(lead_id)) if dense else coverage
        result.confidence = round(0.6 * covered + 0.4 * margin, 3)
        # a leader sharing no word with the question (brought in by meaning alone) that the
        # model does not vouch for is no answer
        if stray_match(lead, shares_no_word if as_question else thin_match):
            if not (dense and dense.answers(lead_id)):
                result.not_found = True
                stray_code = "stray" if coverage > 0 or not dense else "no_meaning"
                result.set_reason(stray_code, coverage=coverage)
                return
        tied = [
            c
            for c in current
            if c.adjusted >= s1 * (1.0 - self.config.ambiguity_margin)
            and c.matched == lead.matched
            and (not dense or dense.tied(c.ref["id"], lead_id))
        ]
        # pieces of one stored document are one answer (its passages), never rivals
        tied = _one_per_document(tied)
        # memories tied on the words, of which some hold the shape of answer asked ("the repo
        # URL": one gives it, another only names the repo): only those answer
        if answers_shape is not None and len(tied) >= 2:
            holding = [c for c in tied if answers_shape(c)]
            if holding:
                tied = holding
        # a choice is made between the memories the answer shows: a rival the ordering stages
        # left below the shown ones would leave AMBIGUOUS listing a single memory
        shown = {h.leaf_id for h in result.hits}
        tied = [c for c in tied if c.ref["id"] in shown]
        # several memories answer differently only when they answer: a tie between memories
        # that each hold a small part of the question is a weak match, not a choice to make
        if len(tied) >= 2 and coverage >= AMBIGUOUS_COVERAGE:
            contents = {c.ref.get("excerpt", "") + c.ref["id"] for c in tied}
            if not history and self._settle_by_change(result, tied, new_value):
                return
            if self._tell_one_value(tied, shapes, subject):
                return
            if len(contents) >= 2:
                result.ambiguous = True
                result.candidate_ids = [c.ref["id"] for c in tied]
                result.set_reason("ambiguous", n=len(tied))


def _date_of(cand: Candidate) -> str:
    return cand.ref.get("date") or ""


def _changed_notice(newer: Candidate) -> str:
    """The notice on a memory a later one changed, which answers first."""
    return (
        f"OUTDATED: a later memory ({_date_of(newer)[:10]}) says this changed; it is listed first"
    )


def _lead_by_meaning(ranked: list, dense, replaced: dict[str, str], now: bool) -> list:
    """The leaf that stands clear of all others in meaning leads when the answer chosen on
    words holds little of the question (a paraphrase), unless it is an old value: corrected
    by a link, or, for a question about now, followed by a later memory saying the same
    thing (meaning cannot tell old from new); see ihmt/semantic/fusion.py."""
    if not ranked or getattr(ranked[0], "pinned", False):
        return ranked
    lead = ranked[0]
    leader = dense.leader()
    if leader is None or leader == lead.ref["id"] or lead.coverage >= dense.fusion.lead_coverage:
        return ranked
    chosen = next((c for c in ranked if c.ref["id"] == leader), None)
    if chosen is None or leader in replaced or (now and getattr(chosen, "restated", False)):
        return ranked
    chosen.adjusted = max(chosen.adjusted, lead.adjusted) * (1 + RECENCY_TIE)
    return [chosen] + [c for c in ranked if c is not chosen]


def _whole_values(shapes) -> tuple:
    """The shapes asked whose values compare whole (a port, a version, a place): a date is
    read as its month ("July"), a person as any given name, so two different holidays in July
    would look like one value."""
    return tuple(s for s in strict_shapes(shapes) if s.name != "birthday")


def _days_apart(a: Candidate, b: Candidate) -> int:
    try:
        first = _dt.date.fromisoformat(_date_of(a)[:10])
        second = _dt.date.fromisoformat(_date_of(b)[:10])
    except ValueError:
        return 1 << 30  # an undated memory is no contemporary of another
    return abs((first - second).days)


def _one_per_document(cands: list) -> list:
    """The candidates in order, keeping the first piece of each stored document: two
    passages of one runbook are one answer, not two memories that disagree. Pieces dated
    apart are entries of a journal or a log (two days, two people called Luis): they stay."""
    seen: set[str] = set()
    kept = []
    for cand in cands:
        source = cand.ref.get("source") or ""
        key = (
            f"document:{source}:{cand.ref.get('date') or ''}"
            if source and source != "memory"
            else cand.ref["id"]
        )
        if key not in seen:
            seen.add(key)
            kept.append(cand)
    return kept


def _prefer_named(ranked: list, names) -> list:
    """A leading candidate missing a name the question uses ("Almena's database"), which
    another leading candidate holds, is about something else: it steps back."""
    if not names or len(ranked) < 2 or getattr(ranked[0], "pinned", False):
        return ranked
    window = ranked[:NAME_WINDOW]
    # a name counts as held when all of it is ("Pablo Sanz", not another Pablo)
    held = [{i for i, (_, named) in enumerate(names) if set(named) <= c.matched} for c in window]
    somewhere = set().union(*held)
    if not somewhere:
        return ranked
    for cand, has in zip(window, held, strict=True):
        missing = len(somewhere - has)
        if missing:
            cand.adjusted *= NAME_MISS**missing
    return sorted(window, key=lambda c: (-c.adjusted, c.ref["id"])) + ranked[NAME_WINDOW:]


def _named_before_cue(text: str, names: list) -> list:
    """The names a history question spells before its cue word ("before", "antes"...)."""
    cue = history_cue_at(text)
    if cue < 0:
        return []
    return [name for name in names if 0 <= text.find(name[0]) < cue]


def years_or_months(text: str) -> bool:
    """The question is set at a time ("in 2025", "in March"), not about now."""
    return bool(year_mentions(text) or months_asked(text))


def _surface_words(text: str, wanted: set[str]) -> list[str]:
    """The question's own spelling of the terms in ``wanted``, in order, once each."""
    out: list[str] = []
    for token in tokenize(text[:MAX_QUERY_CHARS]):
        if is_term(token) and normalize(token) in wanted and token not in out:
            out.append(token)
    return out[:8]


def _is_outdated(
    leaf_id: str,
    time: TimeContext,
    answering: frozenset[str] | set[str],
    untouched: frozenset[str] | set[str] = frozenset(),
) -> bool:
    """Replaced by the user, or stating a fact that changed since, unless it holds the very
    value the question asks for (a replaced one: unless its correction is about something else
    than what is asked)."""
    if leaf_id in time.replaced_by:
        return leaf_id not in untouched
    return leaf_id in time.outdated and leaf_id not in answering


def result_is_outdated(cand: Candidate, result: SearchResult) -> bool:
    if getattr(cand, "pinned", False):
        return False  # the value a history question asks for ("where did I live in 2024?")
    for hit in result.hits:
        if hit.leaf_id == cand.ref["id"]:
            return hit.outdated
    return False


def unreadable_notice(count: int) -> str:
    """The one line every answer carries while memory files cannot be read."""
    return (
        f"{count} memory file(s) cannot be read (permission denied); answers may miss them — "
        "see `ihmt check`"
    )
