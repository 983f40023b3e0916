def test_doctor_names_the_sandbox_mode_and_why(cli):
    result = cli("doctor")
    assert result.code == 0
    assert "sandbox: bubblewrap" in result.stdout.replace("\n", " ")
    weak = cli("doctor", env={"CODETRIAL_SANDBOX": "process"})
    assert "sandbox: process" in weak.stdout and "warn" in weak.stdout
