#pragma once
// The DiCE embedding API: everything an embedding program includes.
#include "dice/node.hpp"
#include "dice/task.hpp"
