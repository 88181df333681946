import os
import sys

# The project root on sys.path, so tests import `sample` wherever they run.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
