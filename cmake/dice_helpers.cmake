# Precompiled CAF headers, shared by every target that includes CAF.
add_library(dice_caf_pch INTERFACE)
target_link_libraries(dice_caf_pch INTERFACE CAF::core CAF::io)

# A library whose sources include CAF gets the CAF precompiled header.
function(dice_use_caf target)
  target_link_libraries(${target} PUBLIC CAF::core CAF::io)
  target_precompile_headers(${target} PRIVATE <caf/all.hpp> <caf/io/all.hpp>)
endfunction()
