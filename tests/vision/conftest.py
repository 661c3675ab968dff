import pytest
from pysol_decks import MUGHAL_DIR

from companion.vision.classify import CardClassifier
from companion.vision.enroll import enroll_folder


@pytest.fixture(scope="session")
def mughal_profile():
    """The PySolFC Mughal deck enrolled from its pictures, once for every test that reads it."""
    return enroll_folder(MUGHAL_DIR, MUGHAL_DIR / "manifest.csv", "pysol", CardClassifier())
