"""Local tooling for Persona Rails: serve and invoke the functions declared in template.yaml.

Importing this package puts the shared layer's ContentUri on sys.path, as Lambda puts /opt/python,
because the tooling itself uses the layer (database, tokens) and never installs it as a package.
"""

import sys as _sys

from persona_rails_dev.template import layer_paths as _layer_paths

for _path in _layer_paths():
    if str(_path) not in _sys.path:
        _sys.path.insert(0, str(_path))
