#pragma once
// The atoms of the node's actor interface (dice/actors.hpp), in a CAF
// type-ID block of their own; DiCE's internal block (messages/type_ids.hpp)
// starts where this one ends. An atom's text may equal an internal one:
// atoms are tags, the rest of a message's types tell its meaning.
#include <caf/type_id.hpp>

CAF_BEGIN_TYPE_ID_BLOCK(dice_embed, caf::first_custom_type_id)
  CAF_ADD_ATOM(dice_embed, dice::embed, submit_atom, "submit")
  CAF_ADD_ATOM(dice_embed, dice::embed, await_atom, "await")
  CAF_ADD_ATOM(dice_embed, dice::embed, query_atom, "query")
  CAF_ADD_ATOM(dice_embed, dice::embed, cancel_atom, "cancel")
  CAF_ADD_ATOM(dice_embed, dice::embed, remove_atom, "remove")
  CAF_ADD_ATOM(dice_embed, dice::embed, subscribe_atom, "subscribe")
  CAF_ADD_ATOM(dice_embed, dice::embed, unsubscribe_atom, "unsub")
  CAF_ADD_ATOM(dice_embed, dice::embed, publish_atom, "publish")
  CAF_ADD_ATOM(dice_embed, dice::embed, evaluate_atom, "evaluate")
  CAF_ADD_ATOM(dice_embed, dice::embed, workflow_atom, "workflow")
  CAF_ADD_ATOM(dice_embed, dice::embed, schedule_atom, "schedule")
CAF_END_TYPE_ID_BLOCK(dice_embed)
