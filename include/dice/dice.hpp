#pragma once
// The DiCE embedding API: everything an embedding program includes.
#include "dice/actors.hpp"
#include "dice/node.hpp"
#include "dice/task.hpp"
