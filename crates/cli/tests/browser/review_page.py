"""Drives catui's plan review page in a real browser (Debian's Chromium
through chromedriver, with Selenium) for crates/cli/tests/suite/plan_review_browser.rs.

    review_page.py send-back URL LINE COMMENT FEEDBACK
    review_page.py approve URL MODE [SCREENSHOT]     MODE: acceptEdits | manual | clear
    review_page.py skip-and-approve URL STEP MODE

Each prints one JSON line of facts (what the page showed, its render time)
for the Rust test to check. Nothing here reaches the network: the browser
runs with background networking off and a new empty profile.
"""

import json
import os
import sys
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

WAIT = 20


def browser(profile):
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CATUI_CHROMIUM", "/usr/bin/chromium")
    for flag in [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1440,1000",
        "--user-data-dir=" + profile,
    ]:
        options.add_argument(flag)
    service = Service(executable_path=os.environ.get("CATUI_CHROMEDRIVER", "/usr/bin/chromedriver"))
    return webdriver.Chrome(service=service, options=options)


def open_page(driver, url):
    driver.get(url)
    WebDriverWait(driver, WAIT).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true"
    )
    body = driver.find_element(By.TAG_NAME, "body")
    return {
        "title": driver.title,
        "address": driver.current_url,
        "renderMs": float(body.get_attribute("data-render-ms")),
        "loadMs": float(body.get_attribute("data-load-ms")),
        "planText": driver.find_element(By.ID, "plan").text,
        "revisions": len(driver.find_elements(By.CSS_SELECTOR, "#revisions li")),
        "outline": [a.text for a in driver.find_elements(By.CSS_SELECTOR, "#outline a")],
        "scripts": len(driver.find_elements(By.CSS_SELECTOR, "#plan script")),
    }


def wait_decided(driver):
    summary = WebDriverWait(driver, WAIT).until(
        EC.visibility_of_element_located((By.ID, "decided-summary"))
    )
    return summary.text


def comment_on_line(driver, line, text):
    driver.find_element(By.ID, "tab-lines").click()
    driver.find_element(By.CSS_SELECTOR, '#lines .src-line[data-line="%s"] .ln' % line).click()
    box = WebDriverWait(driver, WAIT).until(EC.visibility_of_element_located((By.ID, "editor-text")))
    box.send_keys(text)
    driver.find_element(By.ID, "editor-save").click()
    WebDriverWait(driver, WAIT).until(
        EC.presence_of_element_located((By.CSS_SELECTOR, '#comments li[data-comment-line="%s"]' % line))
    )


def pick_mode(driver, mode):
    value = {"acceptEdits": "acceptEdits", "manual": "", "clear": "clear"}[mode]
    driver.find_element(By.CSS_SELECTOR, 'input[name="mode"][value="%s"]' % value).click()


def main():
    command, url = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as profile:
        driver = browser(profile)
        try:
            facts = open_page(driver, url)
            # The page was opened with the token; the address bar no longer has it.
            facts["tokenLeftAddress"] = "token=" not in driver.current_url
            facts["alerts"] = driver.execute_script("return typeof window.__pwned")
            if command == "send-back":
                line, comment, feedback = sys.argv[3], sys.argv[4], sys.argv[5]
                comment_on_line(driver, line, comment)
                driver.find_element(By.ID, "feedback").send_keys(feedback)
                driver.find_element(By.ID, "keep-planning").click()
            elif command == "approve":
                pick_mode(driver, sys.argv[3])
                if len(sys.argv) > 4:
                    # The page under review, with its history, for the docs.
                    driver.find_element(By.CSS_SELECTOR, '#revisions button[data-revision="1"]').click()
                    driver.find_element(By.ID, "tab-plan").click()
                    driver.save_screenshot(sys.argv[4])
                driver.find_element(By.ID, "approve-button").click()
            elif command == "skip-and-approve":
                step, mode = sys.argv[3], sys.argv[4]
                driver.find_element(By.CSS_SELECTOR, "#steps-box summary").click()
                driver.find_element(By.CSS_SELECTOR, '#steps input[data-step="%s"]' % step).click()
                pick_mode(driver, mode)
                driver.find_element(By.ID, "approve-button").click()
            else:
                raise SystemExit("unknown command " + command)
            facts["decided"] = wait_decided(driver)
            print(json.dumps(facts))
        finally:
            driver.quit()


if __name__ == "__main__":
    main()
