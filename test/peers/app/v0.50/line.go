// SDK v0.50.15 with x/upgrade v0.1.4 (cosmossdk.io/x/upgrade) and client/v2 beta.8: the old binary of the
// v050-to-v053 upgrade. It registers no handler, so it halts at that plan and writes upgrade-info.json.
package main

import (
	appv1alpha1 "cosmossdk.io/api/cosmos/app/v1alpha1"
	"cosmossdk.io/log"
	_ "cosmossdk.io/x/upgrade"
	upgradekeeper "cosmossdk.io/x/upgrade/keeper"
)

type (
	Logger        = log.Logger
	UpgradeKeeper = upgradekeeper.Keeper
)

func nopLogger() Logger { return log.NewNopLogger() }

// The modules v0.50 adds to the common set: none.
var (
	lineModules       []*appv1alpha1.ModuleConfig
	lineBeginBlockers []string
	lineInitGenesis   []string
)

func (app *App) registerUpgrades() {}
