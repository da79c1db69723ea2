// SDK v0.50.15 with x/upgrade v0.1.4 (cosmossdk.io/x/upgrade) and client/v2 beta.8: the old binary of the
// v050-to-v053 upgrade. It registers no handler, so it halts at that plan and writes upgrade-info.json.
package main

import (
	"io"

	dbm "github.com/cosmos/cosmos-db"

	appv1alpha1 "cosmossdk.io/api/cosmos/app/v1alpha1"
	"cosmossdk.io/log"
	_ "cosmossdk.io/x/upgrade"
	upgradekeeper "cosmossdk.io/x/upgrade/keeper"

	"github.com/cosmos/cosmos-sdk/runtime"
	"github.com/cosmos/cosmos-sdk/server"
	servertypes "github.com/cosmos/cosmos-sdk/server/types"
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

// newApp and exportApp are the server's constructors, whose shape is this line's: they carry a trace writer
// (SDK v0.54 drops it).
func newApp(logger Logger, db dbm.DB, traceStore io.Writer, appOpts servertypes.AppOptions) servertypes.Application {
	return NewApp(logger, appOpts, func(b *runtime.AppBuilder) *runtime.App {
		return b.Build(db, traceStore, server.DefaultBaseappOptions(appOpts)...)
	})
}

func exportApp(Logger, dbm.DB, io.Writer, int64, bool, []string, servertypes.AppOptions, []string) (servertypes.ExportedApp, error) {
	return servertypes.ExportedApp{}, errNoExport
}
