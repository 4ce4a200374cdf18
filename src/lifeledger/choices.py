"""The choices the players state for their triggered abilities (603.3b order, 603.3d
targets) and for Lich's Mirror's replacements (616.1), version 2."""

from __future__ import annotations

from .actions import Choose
from .core import GameBase
from .errors import MalformedError, quote
from .sentences import Id, Sentence


class ChoicesMixin(GameBase):
    """Stated choices (603.3b, 603.3d, 616.1)."""

    def _check_choose(self, action: Choose) -> None:
        self._check_version_2(action)
        for member, ids in (
            ("order", action.order),
            ("targets", [i for i, _ in action.targets]),
            ("replacements", action.replacements),
        ):
            for effect_id in ids:
                if effect_id not in self._known_ids:
                    raise MalformedError(
                        Sentence("no effect or card has the id {id}", id=quote(effect_id)),
                        member=member,
                    )
        for _, players in action.targets:
            for pid in players:
                self._get(pid, "targets")

    def _do_choose(self, action: Choose) -> None:
        """603.3b, 603.3d: the player's choices stand until they state them again.

        Each choice is one player's, and only theirs counts: the order of triggered abilities
        and their targets are their controller's (603.3b, 603.3d, 601.2c, 115.1), the order of
        replacement effects the affected player's (616.1). What a player states of a choice
        that isn't theirs is ignored (a note says so where the engine can tell already: an
        ability another player controls); the rest of their statement stands."""
        stack = self._stack
        player = action.player
        team_orders = self.variant.shared_turns  # 805.7: a team orders its members' abilities
        for effect_id in action.order:
            owner = self._controller_of(effect_id)
            if team_orders and owner is not None and not self.are_opponents(owner, player):
                continue
            if owner is not None and owner != player:
                self._note(
                    "603.3b",
                    Sentence(
                        "{id} is {owner}'s: {owner} orders its abilities, {player}'s statement"
                        " of it is ignored",
                        id=Id(effect_id),
                        owner=Id(owner),
                        player=Id(player),
                    ),
                )
        if action.order:
            self._set_count_any(stack.order, action.player, action.order)
        if action.replacements:
            # The ids stated come first, in their order; those stated before keep theirs
            # after them (a statement on one event leaves the order on another standing).
            kept = stack.replacements.get(action.player, ())
            stated = set(action.replacements)  # each statement costs its length, however long
            merged = (*action.replacements, *(i for i in kept if i not in stated))
            self._set_count_any(stack.replacements, action.player, merged)
        for effect_id, players in action.targets:
            owner = self._controller_of(effect_id)
            if owner is not None and owner != player:
                # 603.3d, 601.2c: the controller chooses the targets; another's word changes
                # nothing, not even a statement of the controller's own that it would follow.
                self._note(
                    "603.3d",
                    Sentence(
                        "{id} is {owner}'s: {owner} chooses its targets, {player}'s statement"
                        " of them is ignored",
                        id=Id(effect_id),
                        owner=Id(owner),
                        player=Id(player),
                    ),
                )
                continue
            self._set_count_any(stack.targets, effect_id, players)

    def _controller_of(self, effect_id: str) -> str | None:
        """The controller of the effect or card ``effect_id`` that applies now (``None``: none
        does: it has ended, and no ability of it will trigger again)."""
        group = self._effects.get(effect_id)
        return group[0].controller if group else None
